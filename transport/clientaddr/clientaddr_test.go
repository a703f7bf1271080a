package clientaddr

import "testing"

func TestKey(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"192.0.2.1:5555", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
		{"192.0.2.2:5555", "192.0.2.2"}, // IPv4: each address its own client
		// One /64: one client, whatever the address and port.
		{"[2001:db8:1:2::1]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:80", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::99", "2001:db8:1:2::/64"},
		{"[2001:DB8:1:2::1]:443", "2001:db8:1:2::/64"},
		// Another /64: another client.
		{"[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"},
		// IPv4-mapped: the IPv4 address.
		{"[::ffff:192.0.2.1]:5555", "192.0.2.1"},
		{"[::ffff:c000:201]:5555", "192.0.2.1"},
		// A zone is dropped.
		{"[fe80::1%eth0]:5555", "fe80::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"[::1]:5555", "::/64"},
		// Not an IP address: as it is.
		{"garbage", "garbage"},
		{"", ""},
		{"@", "@"},
		{"localhost:80", "localhost"},
		{"01.2.3.4:80", "01.2.3.4"},
	} {
		if got := Key(c.addr); got != c.want {
			t.Errorf("Key(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestKeyIPv4DoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Key("192.0.2.1:5555") }); n != 0 {
		t.Errorf("Key of an IPv4 address: %v allocations", n)
	}
}
