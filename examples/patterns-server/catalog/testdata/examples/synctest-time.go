// testing/synctest: virtual time makes timeout tests instant and exact.
package synctesting

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestTimeoutFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		start := time.Now()
		<-ctx.Done() // returns immediately in real time
		if elapsed := time.Since(start); elapsed != 5*time.Second {
			t.Fatalf("virtual elapsed = %v, want 5s", elapsed)
		}
	})
}
