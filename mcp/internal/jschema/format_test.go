package jschema

import (
	"strings"
	"testing"
)

// fmtCases lists, per format, strings with the verdict the checker must give.
var fmtCases = []struct {
	format string
	in     string
	valid  bool
}{
	// date-time
	{"date-time", "1963-06-19T08:30:06.283185Z", true},
	{"date-time", "1963-06-19T08:30:06Z", true},
	{"date-time", "1963-06-19t08:30:06z", true},
	{"date-time", "1937-01-01T12:00:27.87+00:20", true},
	{"date-time", "1990-12-31T15:59:50.123-08:00", true},
	{"date-time", "1998-12-31T23:59:60Z", true},
	{"date-time", "1998-12-31T15:59:60.123-08:00", true},
	{"date-time", "2000-02-29T00:00:00Z", true},
	{"date-time", "2024-01-01T00:00:00+23:59", true},
	{"date-time", "2024-01-01T00:00:00-00:00", true},
	{"date-time", "1998-12-31T23:59:61Z", false},
	{"date-time", "1998-12-31T23:58:60Z", false},
	{"date-time", "1998-12-31T22:59:60Z", false},
	{"date-time", "1998-12-31T23:59:60+01:00", false},
	{"date-time", "1990-02-31T15:59:59.123-08:00", false},
	{"date-time", "1990-12-31T15:59:59-24:00", false},
	{"date-time", "1990-12-31T15:59:59+08:60", false},
	{"date-time", "1990-12-31T15:59:59+0800", false},
	{"date-time", "1963-06-19T08:30:06.283185", false},
	{"date-time", "1963-06-19T08:30:06.Z", false},
	{"date-time", "1963-06-19 08:30:06Z", false},
	{"date-time", "1963-06-19", false},
	{"date-time", "06/19/1963 08:30:06 PST", false},
	{"date-time", "2013-350T01:01:01", false},
	{"date-time", "1963-06-1\u09eaT00:00:00Z", false},
	{"date-time", "", false},

	// date
	{"date", "1963-06-19", true},
	{"date", "2020-01-31", true},
	{"date", "2020-02-29", true},
	{"date", "2000-02-29", true},
	{"date", "2020-04-30", true},
	{"date", "0000-01-01", true},
	{"date", "2021-02-29", false},
	{"date", "1900-02-29", false},
	{"date", "2020-02-30", false},
	{"date", "2020-04-31", false},
	{"date", "2020-01-32", false},
	{"date", "2020-13-01", false},
	{"date", "2020-00-10", false},
	{"date", "2020-01-00", false},
	{"date", "2020-1-01", false},
	{"date", "20200101", false},
	{"date", "06/19/1963", false},
	{"date", "1963-06-1\u09ea", false},
	{"date", "2020-01-01T00:00:00Z", false},

	// time
	{"time", "08:30:06Z", true},
	{"time", "08:30:06z", true},
	{"time", "08:30:06.283185Z", true},
	{"time", "08:30:06+00:20", true},
	{"time", "08:30:06-08:00", true},
	{"time", "23:59:60Z", true},
	{"time", "15:59:60-08:00", true},
	{"time", "01:29:60+01:30", true},
	{"time", "23:29:60-00:30", true},
	{"time", "00:00:00+23:59", true},
	{"time", "08:30:06", false},
	{"time", "22:59:60Z", false},
	{"time", "23:58:60Z", false},
	{"time", "23:59:60+00:30", false},
	{"time", "23:59:61Z", false},
	{"time", "24:00:00Z", false},
	{"time", "08:60:00Z", false},
	{"time", "08:30:06+24:00", false},
	{"time", "08:30:06+00:60", false},
	{"time", "08:30:06 PST", false},
	{"time", "8:30:06Z", false},
	{"time", "08:30:06.Z", false},
	{"time", "08:30Z", false},
	{"time", "01:01:01,1111Z", false},

	// duration
	{"duration", "P4DT12H30M5S", true},
	{"duration", "P1Y2M3DT4H5M6S", true},
	{"duration", "P4Y", true},
	{"duration", "PT0S", true},
	{"duration", "P0D", true},
	{"duration", "P1M", true},
	{"duration", "PT1M", true},
	{"duration", "PT36H", true},
	{"duration", "P1DT12H", true},
	{"duration", "P2W", true},
	{"duration", "P1Y1D", true},  // components may be skipped (ISO 8601)
	{"duration", "PT1H1S", true}, // likewise
	{"duration", "P", false},
	{"duration", "PT", false},
	{"duration", "P1YT", false},
	{"duration", "PT1D", false},
	{"duration", "P2D1Y", false},
	{"duration", "P1D2H", false},
	{"duration", "P2S", false},
	{"duration", "P1Y2W", false},
	{"duration", "P2WT1H", false},
	{"duration", "P1Y1Y", false},
	{"duration", "P1.5Y", false},
	{"duration", "PY", false},
	{"duration", "P1", false},
	{"duration", "1D", false},
	{"duration", "p1d", false},
	{"duration", "P\u09e8Y", false},

	// email
	{"email", "joe.bloggs@example.com", true},
	{"email", "te~st@example.com", true},
	{"email", "~test@example.com", true},
	{"email", "test~@example.com", true},
	{"email", "!#$%&'*+-/=?^_`{|}~@example.com", true},
	{"email", "joe@localhost", true},
	{"email", "\"joe bloggs\"@example.com", true},
	{"email", "\"joe..bloggs\"@example.com", true},
	{"email", "\"joe@bloggs\"@example.com", true},
	{"email", "\"joe\\\"bloggs\"@example.com", true},
	{"email", "joe.bloggs@[127.0.0.1]", true},
	{"email", "joe.bloggs@[IPv6:::1]", true},
	{"email", "joe.bloggs@[ipv6:2001:db8::1]", true},
	{"email", "2962", false},
	{"email", "@example.com", false},
	{"email", "joe@", false},
	{"email", ".test@example.com", false},
	{"email", "test.@example.com", false},
	{"email", "te..st@example.com", false},
	{"email", "joe bloggs@example.com", false},
	{"email", "\"joe\"bloggs\"@example.com", false},
	{"email", "\"joe\\\"@example.com", false},
	{"email", "joe.bloggs@[127.0.0.300]", false},
	{"email", "joe.bloggs@[::1]", false},
	{"email", "joe.bloggs@[IPv6:1::2::3]", false},
	{"email", "joe@example.com.", false},
	{"email", "joe@-example.com", false},
	{"email", "joe@exa_mple.com", false},
	{"email", "j\u00f6e@example.com", false},
	{"email", "joe@\u00e9xample.com", false},
	{"email", strings.Repeat("a", 65) + "@example.com", false},

	// idn-email
	{"idn-email", "\uc2e4\ub840@\uc2e4\ub840.\ud14c\uc2a4\ud2b8", true},
	{"idn-email", "joe.bloggs@example.com", true},
	{"idn-email", "j\u00f6e@b\u00fccher.example", true},
	{"idn-email", "\"j\u00f6e bloggs\"@example.com", true},
	{"idn-email", "\u7528\u6237@[127.0.0.1]", true},
	{"idn-email", "2962", false},
	{"idn-email", "\u7528\u6237@", false},
	{"idn-email", "\u7528..\u6237@example.com", false},
	{"idn-email", "joe@\u2603.com", false},
	{"idn-email", "joe@example.com.", false},
	{"idn-email", "j\xffe@example.com", false},

	// hostname
	{"hostname", "www.example.com", true},
	{"hostname", "xn--4gbwdl.xn--wgbh1c", true},
	{"hostname", "hostname", true},
	{"hostname", "host-name", true},
	{"hostname", "h0stn4me", true},
	{"hostname", "1host", true},
	{"hostname", "hostnam3", true},
	{"hostname", "EXAMPLE.COM", true},
	{"hostname", strings.Repeat("a", 63) + ".com", true},
	{"hostname", strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 61), true},
	{"hostname", strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 62), false},
	{"hostname", strings.Repeat("a", 64) + ".com", false},
	{"hostname", "example.com.", false},
	{"hostname", "-a-host-name-that-starts-with--", false},
	{"hostname", "host-.example", false},
	{"hostname", "not_a_valid_host_name", false},
	{"hostname", "_hostname", false},
	{"hostname", "a..b", false},
	{"hostname", ".example", false},
	{"hostname", ".", false},
	{"hostname", "", false},
	{"hostname", "\u00e9xample.com", false},
	{"hostname", "exa mple.com", false},

	// idn-hostname
	{"idn-hostname", "\uc2e4\ub840.\ud14c\uc2a4\ud2b8", true},
	{"idn-hostname", "b\u00fccher.example", true},
	{"idn-hostname", "www.example.com", true},
	{"idn-hostname", "xn--ihqwcrb4cv8a8dqg056pqjye", true},
	{"idn-hostname", "\u4e2d\u6587\u3002\u4e2d\u56fd", true},
	{"idn-hostname", "\u00df\u03c2\u0f0b\u3007", true},
	{"idn-hostname", "\u06fd\u06fe", true},
	{"idn-hostname", "l\u00b7l", true},
	{"idn-hostname", "\u03b1\u0375\u03b2", true},
	{"idn-hostname", "\u05d0\u05f3\u05d1", true},
	{"idn-hostname", "\u30fb\u3041", true},
	{"idn-hostname", "\u0628\u0660\u0628", true},
	{"idn-hostname", "\u06f00", true},
	{"idn-hostname", "\u0915\u094d\u200d\u0937", true},
	{"idn-hostname", "\u0915\u094d\u200c\u0937", true},
	{"idn-hostname", "\u0628\u064a\u200c\u0628\u064a", true},
	{"idn-hostname", "\u302e\uc2e4\ub840.\ud14c\uc2a4\ud2b8", false},
	{"idn-hostname", "\ud55c\u302e\uae00", false},
	{"idn-hostname", "\u0640\u07fa", false},
	{"idn-hostname", "\u3031\u3032\u3033\u3034\u3035\u302e\u302f\u303b", false},
	{"idn-hostname", "\u0300hello", false},
	{"idn-hostname", "\u0488hello", false},
	{"idn-hostname", "\u0903hello", false},
	{"idn-hostname", "a\u00b7l", false},
	{"idn-hostname", "\u00b7l", false},
	{"idn-hostname", "l\u00b7a", false},
	{"idn-hostname", "l\u00b7", false},
	{"idn-hostname", "\u03b1\u0375S", false},
	{"idn-hostname", "\u03b1\u0375", false},
	{"idn-hostname", "A\u05f3\u05d1", false},
	{"idn-hostname", "\u05f4\u05d1", false},
	{"idn-hostname", "def\u30fbabc", false},
	{"idn-hostname", "\u0660\u06f0", false},
	{"idn-hostname", "\u0915\u200d\u0937", false},
	{"idn-hostname", "\u200d\u0937", false},
	{"idn-hostname", "\u0915\u200c", false},
	{"idn-hostname", "\u00fc\u00fc--\u00fc\u00fc", false},
	{"idn-hostname", "-\u00fcber", false},
	{"idn-hostname", "\u00fcber-", false},
	{"idn-hostname", "\u2603.com", false},
	{"idn-hostname", "-> $1.00 <--", false},
	{"idn-hostname", "example.com.", false},
	{"idn-hostname", "example\u3002", false},
	{"idn-hostname", "a..b", false},
	{"idn-hostname", "", false},
	{"idn-hostname", ".", false},
	{"idn-hostname", strings.Repeat("a", 64), false},
	{"idn-hostname", strings.Repeat("\u00fc", 60), false},
	{"idn-hostname", strings.Repeat("\u00fc", 59), true},
	{"idn-hostname", "b\xffcher", false},

	// ipv4
	{"ipv4", "192.168.0.1", true},
	{"ipv4", "0.0.0.0", true},
	{"ipv4", "255.255.255.255", true},
	{"ipv4", "127.0.0.10", true},
	{"ipv4", "256.256.256.256", false},
	{"ipv4", "127.0.0.0.1", false},
	{"ipv4", "127.0", false},
	{"ipv4", "127.0.0.", false},
	{"ipv4", ".127.0.0", false},
	{"ipv4", "0x7f000001", false},
	{"ipv4", "2130706433", false},
	{"ipv4", "087.10.0.1", false},
	{"ipv4", "87.10.0.01", false},
	{"ipv4", "00.0.0.0", false},
	{"ipv4", "1\u09e87.0.0.1", false},
	{"ipv4", "192.168.1.0/24", false},
	{"ipv4", " 1.2.3.4", false},
	{"ipv4", "", false},

	// ipv6
	{"ipv6", "::1", true},
	{"ipv6", "::", true},
	{"ipv6", "1::", true},
	{"ipv6", "::abef", true},
	{"ipv6", "1:2:3:4:5:6:7:8", true},
	{"ipv6", "1:d6::42", true},
	{"ipv6", "ABCD:ef01:2345:6789:abcd:EF01:2345:6789", true},
	{"ipv6", "0000:0000:0000:0000:0000:0000:0000:0001", true},
	{"ipv6", "1:2:3:4:5:6:7::", true},
	{"ipv6", "::1:2:3:4:5:6:7", true},
	{"ipv6", "1::d6:192.168.0.1", true},
	{"ipv6", "1:2::192.168.0.1", true},
	{"ipv6", "::ffff:192.168.0.1", true},
	{"ipv6", "::192.168.0.1", true},
	{"ipv6", "1:2:3:4:5:6:1.2.3.4", true},
	{"ipv6", "12345::", false},
	{"ipv6", "::abcef", false},
	{"ipv6", "1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1", false},
	{"ipv6", "1:2:3:4:5:6:7", false},
	{"ipv6", "1:2:3:4:5:6:7:8:9", false},
	{"ipv6", "1:2:3:4:5:6:7:8::", false},
	{"ipv6", "::1:2:3:4:5:6:7:8", false},
	{"ipv6", ":::", false},
	{"ipv6", "1:::2", false},
	{"ipv6", "1::2::3", false},
	{"ipv6", ":2:3:4:5:6:7:8", false},
	{"ipv6", "1:2:3:4:5:6:7:", false},
	{"ipv6", ":", false},
	{"ipv6", "::laptop", false},
	{"ipv6", "::1%eth0", false},
	{"ipv6", "fe80::1%25eth0", false},
	{"ipv6", "1:2:3:4:5:6:7:1.2.3.4", false},
	{"ipv6", "1:2:3:4:5:1.2.3.4", false},
	{"ipv6", "::ffff:192.168.0.01", false},
	{"ipv6", "::ffff:192.168.0.256", false},
	{"ipv6", "::1.2.3", false},
	{"ipv6", "1.2.3.4", false},
	{"ipv6", "1.2.3.4::", false},
	{"ipv6", "::1.2.3.4:5", false},
	{"ipv6", "[::1]", false},
	{"ipv6", " ::1", false},
	{"ipv6", "1:2:3:4:5:6:7:\u09ea", false},
	{"ipv6", "", false},

	// uri
	{"uri", "http://foo.bar/?baz=qux#quux", true},
	{"uri", "http://foo.com/blah_(wikipedia)_blah#cite-1", true},
	{"uri", "http://foo.bar/?q=Test%20URL-encoded%20stuff", true},
	{"uri", "http://xn--nw2a.xn--j6w193g/", true},
	{"uri", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", true},
	{"uri", "http://223.255.255.254", true},
	{"uri", "http://999.1.1.1/", true}, // a reg-name, not an IPv4address
	{"uri", "ftp://ftp.is.co.za/rfc/rfc1808.txt", true},
	{"uri", "http://www.ietf.org/rfc/rfc2396.txt", true},
	{"uri", "ldap://[2001:db8::7]/c=GB?objectClass?one", true},
	{"uri", "http://[::1]:8080/x", true},
	{"uri", "http://[v1.fe80::a+en1]/", true},
	{"uri", "mailto:John.Doe@example.com", true},
	{"uri", "news:comp.infosystems.www.servers.unix", true},
	{"uri", "tel:+1-816-555-1212", true},
	{"uri", "telnet://192.0.2.16:80/", true},
	{"uri", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2", true},
	{"uri", "file:///etc/passwd", true},
	{"uri", "http://example.com:/", true},
	{"uri", "a+b-c.d:x", true},
	{"uri", "x:", true},
	{"uri", "//foo.bar/?baz=qux#quux", false},
	{"uri", "/abc", false},
	{"uri", "abc", false},
	{"uri", "", false},
	{"uri", "#fragment", false},
	{"uri", "\\\\WINDOWS\\fileshare", false},
	{"uri", "http:// shouldfail.com", false},
	{"uri", ":// should fail", false},
	{"uri", "bar,baz:foo", false},
	{"uri", "1http://example.com", false},
	{"uri", "http://www.example.com/foo%zz", false},
	{"uri", "http://www.example.com/foo%2", false},
	{"uri", "http://example.com/#a#b", false},
	{"uri", "http://example.com/a b", false},
	{"uri", "http://example.com/a{b}", false},
	{"uri", "http://example.com:80a/", false},
	{"uri", "http://example.com:-80/", false},
	{"uri", "http://example.com:80:90/", false},
	{"uri", "http://a@b@example.com/", false},
	{"uri", "http://[::1/", false},
	{"uri", "http://[::1]x/", false},
	{"uri", "http://[1::2::3]/", false},
	{"uri", "http://[::1%25eth0]/", false},
	{"uri", "http://[192.168.0.1]/", false},
	{"uri", "http://ex[am]ple.com/", false},
	{"uri", "http://example.com/[x]", false},
	{"uri", "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334", false},
	{"uri", "http://\u00e9xample.com/", false},
	{"uri", "http://example.com/\u00e9", false},

	// uri-reference
	{"uri-reference", "http://foo.bar/?baz=qux#quux", true},
	{"uri-reference", "//foo.bar/?baz=qux#quux", true},
	{"uri-reference", "/abc", true},
	{"uri-reference", "abc", true},
	{"uri-reference", "./a:b", true},
	{"uri-reference", "a/b:c", true},
	{"uri-reference", "#fragment", true},
	{"uri-reference", "?q=1", true},
	{"uri-reference", "", true},
	{"uri-reference", "../x/%41", true},
	{"uri-reference", "\\\\WINDOWS\\fileshare", false},
	{"uri-reference", "#frag\\ment", false},
	{"uri-reference", "a:b/c%zz", false},
	{"uri-reference", "1a:b", false},
	{"uri-reference", ":a", false},
	{"uri-reference", "a b", false},
	{"uri-reference", "//[::1", false},
	{"uri-reference", "/\u00e9", false},

	// iri
	{"iri", "http://\u0192\u00f8\u00f8.\u00df\u00e5r/?\u2202\u00e9\u0153=\u03c0\u00eex#\u03c0\u00ee\u00fcx", true},
	{"iri", "http://\u0192\u00f8\u00f8.com/blah_(w\u00efki\u0440\u00e9di\u00e5)_blah#\u00dfit\u00e9-1", true},
	{"iri", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", true},
	{"iri", "http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", true},
	{"iri", "http://example.com/?\ue000", true},
	{"iri", "http://example.com/\U00010348", true},
	{"iri", "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334", false},
	{"iri", "http://[::\u00e9]/", false},
	{"iri", "/abc", false},
	{"iri", "\u00e2\u03c0\u03c0", false},
	{"iri", "\\\\WINDOWS\\fil\u00eb\u00df\u00e5r\u00e9", false},
	{"iri", "http://example.com/\ue000", false},
	{"iri", "http://example.com/#\ue000", false},
	{"iri", "http://example.com/\ufffe", false},
	{"iri", "http://example.com/\u0085", false},
	{"iri", "http://example.com/%zz", false},
	{"iri", "http://example.com/\xff", false},
	{"iri", "\u00e9http://example.com/", false},

	// iri-reference
	{"iri-reference", "http://\u0192\u00f8\u00f8.\u00df\u00e5r/?\u2202\u00e9\u0153=\u03c0\u00eex#\u03c0\u00ee\u00fcx", true},
	{"iri-reference", "//\u0192\u00f8\u00f8.\u00df\u00e5r/?\u2202\u00e9\u0153=\u03c0\u00eex#\u03c0\u00ee\u00fcx", true},
	{"iri-reference", "/\u00e2\u03c0\u03c0", true},
	{"iri-reference", "\u00e2\u03c0\u03c0", true},
	{"iri-reference", "#\u0192r\u00e4gm\u00eant", true},
	{"iri-reference", "", true},
	{"iri-reference", "\\\\WINDOWS\\fil\u00eb\u00df\u00e5r\u00e9", false},
	{"iri-reference", "#\u0192r\u00e4g\\m\u00eant", false},
	{"iri-reference", "\u00e9:x", false},
	{"iri-reference", "a b", false},

	// uuid
	{"uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", true},
	{"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true},
	{"uuid", "2eb8aa08-AA98-11ea-B4Aa-73B441D16380", true},
	{"uuid", "00000000-0000-0000-0000-000000000000", true},
	{"uuid", "98d80576-482e-427f-8434-7f86890ab222", true},
	{"uuid", "99c17cbb-656f-564a-940f-1a4568f03487", true},
	{"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", false},
	{"uuid", "2eb8aa08-aa98-11ea-73b441d16380", false},
	{"uuid", "2eb8aa08-aa98-11ea-b4ga-73b441d16380", false},
	{"uuid", "2eb8aa08aa9811eab4aa73b441d16380", false},
	{"uuid", "2eb8aa08aa98-11ea-b4aa73b441d16380", false},
	{"uuid", "2eb8-aa08-aa98-11ea-b4aa73b44-1d16380", false},
	{"uuid", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}", false},
	{"uuid", "", false},

	// regex
	{"regex", "([abc])+\\s+$", true},
	{"regex", "^[a-z]{2,}$", true},
	{"regex", "(?i)hello|world", true},
	{"regex", "\\p{Greek}+", true},
	{"regex", "", true},
	{"regex", "^(abc]", false},
	{"regex", "a**", false},
	{"regex", "[z-a]", false},
	{"regex", "(?<=a)b", false}, // lookbehind is not RE2
	{"regex", "\\", false},

	// json-pointer
	{"json-pointer", "", true},
	{"json-pointer", "/", true},
	{"json-pointer", "/foo/bar~0/baz~1/%a", true},
	{"json-pointer", "/foo//bar", true},
	{"json-pointer", "/foo/bar/", true},
	{"json-pointer", "/foo/0", true},
	{"json-pointer", "/ /%25/^|\\\"", true},
	{"json-pointer", "/~0~1", true},
	{"json-pointer", "/\u00e9", true},
	{"json-pointer", "/foo/bar~", false},
	{"json-pointer", "/~2", false},
	{"json-pointer", "/~-1", false},
	{"json-pointer", "/~~", false},
	{"json-pointer", "#", false},
	{"json-pointer", "#/", false},
	{"json-pointer", "foo", false},
	{"json-pointer", "0", false},
	{"json-pointer", "a/a", false},
	{"json-pointer", "/\xff", false},

	// relative-json-pointer
	{"relative-json-pointer", "1", true},
	{"relative-json-pointer", "0", true},
	{"relative-json-pointer", "0#", true},
	{"relative-json-pointer", "1/", true},
	{"relative-json-pointer", "0/foo/bar", true},
	{"relative-json-pointer", "2/0/baz/1/zip", true},
	{"relative-json-pointer", "120/foo/bar", true},
	{"relative-json-pointer", "10#", true},
	{"relative-json-pointer", "", false},
	{"relative-json-pointer", "/foo/bar", false},
	{"relative-json-pointer", "-1/foo/bar", false},
	{"relative-json-pointer", "+1/foo/bar", false},
	{"relative-json-pointer", "0##", false},
	{"relative-json-pointer", "01/a", false},
	{"relative-json-pointer", "01#", false},
	{"relative-json-pointer", "00", false},
	{"relative-json-pointer", "#", false},
	{"relative-json-pointer", "1a", false},
	{"relative-json-pointer", "0/~2", false},
	{"relative-json-pointer", "\u09e8/a", false},

	// uri-template
	{"uri-template", "http://example.com/dictionary/{term:1}/{term}", true},
	{"uri-template", "http://example.com/dictionary", true},
	{"uri-template", "dictionary/{term:1}/{term}", true},
	{"uri-template", "", true},
	{"uri-template", "{var}", true},
	{"uri-template", "{+path}/here", true},
	{"uri-template", "{#frag}", true},
	{"uri-template", "X{.x,y}", true},
	{"uri-template", "{/list*,path:4}", true},
	{"uri-template", "{;x,y,empty}", true},
	{"uri-template", "{?x,y}", true},
	{"uri-template", "?fixed=yes{&x}", true},
	{"uri-template", "{var:9999}", true},
	{"uri-template", "{a.b_c%20d}", true},
	{"uri-template", "%20{x}\u00e9", true},
	{"uri-template", "http://example.com/dictionary/{term:1}/{term", false},
	{"uri-template", "http://example.com/dictionary/term}", false},
	{"uri-template", "{{var}}", false},
	{"uri-template", "{}", false},
	{"uri-template", "{+}", false},
	{"uri-template", "{x,}", false},
	{"uri-template", "{,x}", false},
	{"uri-template", "{=var}", false},
	{"uri-template", "{!var}", false},
	{"uri-template", "{@var}", false},
	{"uri-template", "{|var}", false},
	{"uri-template", "{var:0}", false},
	{"uri-template", "{var:01}", false},
	{"uri-template", "{var:10000}", false},
	{"uri-template", "{var:}", false},
	{"uri-template", "{var:3*}", false},
	{"uri-template", "{var*:3}", false},
	{"uri-template", "{.var.}", false},
	{"uri-template", "{a..b}", false},
	{"uri-template", "{a-b}", false},
	{"uri-template", "{a%2}", false},
	{"uri-template", "a b{x}", false},
	{"uri-template", "a\"b", false},
	{"uri-template", "a<b>", false},
	{"uri-template", "a|b", false},
	{"uri-template", "100%", false},
	{"uri-template", "%zz", false},
}

func TestFormatCheckers(t *testing.T) {
	for _, c := range fmtCases {
		check, ok := formats[c.format]
		if !ok {
			t.Errorf("table names unknown format %q (input %q)", c.format, c.in)
			continue
		}
		if got := check(c.in); got != c.valid {
			t.Errorf("format %q, input %q: valid = %v, want %v", c.format, c.in, got, c.valid)
		}
	}
}

func TestFormatTableCoversEveryFormat(t *testing.T) {
	type counts struct{ valid, invalid int }
	seen := map[string]*counts{}
	for _, c := range fmtCases {
		n := seen[c.format]
		if n == nil {
			n = &counts{}
			seen[c.format] = n
		}
		if c.valid {
			n.valid++
		} else {
			n.invalid++
		}
	}
	for name := range formats {
		n := seen[name]
		if n == nil || n.valid == 0 || n.invalid == 0 {
			t.Errorf("format %q needs at least one valid and one invalid example in fmtCases", name)
		}
	}
	for name := range seen {
		if _, ok := formats[name]; !ok {
			t.Errorf("fmtCases names format %q which formats does not define", name)
		}
	}
}

// TestFormatCheckersNoPanic runs every checker on every prefix and suffix of
// every table input, cut at any byte, including mid-rune.
func TestFormatCheckersNoPanic(t *testing.T) {
	for name, check := range formats {
		for _, c := range fmtCases {
			for i := 0; i <= len(c.in); i++ {
				for _, s := range []string{c.in[:i], c.in[i:]} {
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("format %q panicked on %q: %v", name, s, r)
							}
						}()
						check(s)
					}()
				}
			}
		}
	}
}
