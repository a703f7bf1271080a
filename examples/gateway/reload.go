package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// watchInterval is how often the configuration file is looked at.
const watchInterval = time.Second

// watchConfig reloads the configuration when the file changes (its size or
// modification time differ from last, the stamp taken before the running
// configuration was read) or the process gets SIGHUP, until ctx ends. A configuration
// that does not validate is refused with its errors written to out, and the running
// one keeps serving.
func watchConfig(ctx context.Context, g *Gateway, path, last string, out io.Writer) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			last = stamp(path)
			reload(g, path, out)
		case <-tick.C:
			if s := stamp(path); s != last {
				last = s
				reload(g, path, out)
			}
		}
	}
}

func stamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	return fmt.Sprintf("%d/%d", st.Size(), st.ModTime().UnixNano())
}

// reload loads path and applies it; it reports whether it did.
func reload(g *Gateway, path string, out io.Writer) bool {
	cfg, err := LoadConfigFile(path)
	if err == nil {
		err = g.Apply(cfg)
	}
	if err != nil {
		fmt.Fprintf(out, "gateway: reload of %s refused, the previous configuration keeps serving: %v\n", path, err)
		return false
	}
	fmt.Fprintf(out, "gateway: reloaded %s\n", path)
	return true
}
