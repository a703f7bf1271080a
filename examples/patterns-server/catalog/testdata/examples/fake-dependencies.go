// Fakes: the consumer defines a small interface; the test passes a fake.
package faketest

import (
	"testing"
	"time"
)

type clock interface{ Now() time.Time }

type greeter struct{ clock clock }

func (g greeter) Greeting() string {
	if g.clock.Now().Hour() < 12 {
		return "good morning"
	}
	return "good afternoon"
}

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func TestGreeting(t *testing.T) {
	morning := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	if got := (greeter{clock: fixedClock{morning}}).Greeting(); got != "good morning" {
		t.Errorf("Greeting at 09:00 = %q", got)
	}
}
