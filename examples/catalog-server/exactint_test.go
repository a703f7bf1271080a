package main

import (
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// exactIntBefore is exactInt as it was, by two regular expressions (the JSON
// number's form, then parseDecimal's): the reference TestExactInt holds the
// one-pass reading to.
func exactIntBefore(s string) (n *big.Int, ok, huge bool) {
	if !regexp.MustCompile(`^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$`).MatchString(s) {
		return nil, false, false
	}
	d, _ := parseDecimal(s)
	digits, exp := d.digits, d.exp
	if digits == "" {
		return new(big.Int), true, false
	}
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 {
		return nil, false, false
	}
	if int64(len(digits))+exp > maxIntDigits {
		return nil, true, true
	}
	n, _ = new(big.Int).SetString(digits+strings.Repeat("0", int(exp)), 10)
	if d.neg {
		n.Neg(n)
	}
	return n, true, false
}

// TestExactInt: exactInt reads integers as it did with two regular
// expressions: signs, leading zeros, points, exponents (and exponents past
// int64 and past maxDecimalExp), the 2^63 and maxIntDigits boundaries, DECIMAL
// text a JSON number may carry, and what is not a JSON number; then random
// texts of those characters.
func TestExactInt(t *testing.T) {
	cases := []struct {
		s    string
		want string // "" when not ok
		huge bool
	}{
		{"0", "0", false}, {"-0", "0", false}, {"00", "0", false}, {"-000.000e-5", "0", false},
		{"42", "42", false}, {"-42", "-42", false}, {"007", "7", false}, {"-007", "-7", false},
		{"4.2e1", "42", false}, {"4.20E+1", "42", false}, {"420e-1", "42", false}, {"1e3", "1000", false},
		{"1.5", "", false}, {"-1.5e0", "", false}, {"15e-1", "", false}, {"1.50", "", false}, {"1.00", "1", false},
		{"9223372036854775807", "9223372036854775807", false}, {"9223372036854775808", "9223372036854775808", false},
		{"-9223372036854775808", "-9223372036854775808", false}, {"-9223372036854775809", "-9223372036854775809", false},
		{"9.223372036854775807e18", "9223372036854775807", false}, {"92233720368547758.08e2", "9223372036854775808", false},
		{"1" + strings.Repeat("0", 39), "1" + strings.Repeat("0", 39), false}, {"1" + strings.Repeat("0", 40), "", true},
		{"1e39", "1" + strings.Repeat("0", 39), false}, {"1e40", "", true}, {"-1e40", "", true},
		{"1e99999999999999999999", "", true}, {"1e-99999999999999999999", "", false}, {"0e99999999999999999999", "0", false},
		{"1e1099511627776", "", true}, {"1e1099511627777", "", true}, {"1e-1099511627776", "", false},
		{"1e0000000000000000000000002", "100", false}, {"12345678901234567890.000", "12345678901234567890", false},
		{"", "", false}, {"-", "", false}, {"+1", "", false}, {"1.", "", false}, {".5", "", false}, {"-.5", "", false},
		{"1e", "", false}, {"1e+", "", false}, {"1e-", "", false}, {"1 ", "", false}, {" 1", "", false}, {"1_000", "", false},
		{"0x10", "", false}, {"NaN", "", false}, {"Infinity", "", false}, {"--1", "", false}, {"1e1e1", "", false},
		{"١٢", "", false}, {"1.2.3", "", false}, {"1E5", "100000", false},
	}
	for _, tc := range cases {
		n, ok, huge := exactInt(tc.s)
		got := ""
		if ok && n != nil {
			got = n.String()
		}
		if got != tc.want || huge != tc.huge || ok != (tc.want != "" || tc.huge) {
			t.Errorf("exactInt(%q) = %v %v %v, want %q huge %v", tc.s, n, ok, huge, tc.want, tc.huge)
		}
		exactIntSame(t, tc.s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0000123456789..eE+--"
	for range 200000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if !exactIntSame(t, string(b)) {
			break
		}
	}
}

// exactIntSame reports whether exactInt reads s as exactIntBefore does.
func exactIntSame(t *testing.T, s string) bool {
	t.Helper()
	n, ok, huge := exactInt(s)
	bn, bok, bhuge := exactIntBefore(s)
	if ok != bok || huge != bhuge || (n == nil) != (bn == nil) || n != nil && n.Cmp(bn) != 0 {
		t.Errorf("exactInt(%q) = %v %v %v, before %v %v %v", s, n, ok, huge, bn, bok, bhuge)
		return false
	}
	return true
}
