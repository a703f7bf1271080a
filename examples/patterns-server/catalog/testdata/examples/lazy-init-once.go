// Lazy initialisation: compute once, on first use, from any goroutine.
package main

import (
	"fmt"
	"strings"
	"sync"
)

var loadConfig = sync.OnceValues(func() (map[string]string, error) {
	cfg := map[string]string{}
	for _, line := range strings.Split("host=localhost\nport=8080", "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("bad line %q", line)
		}
		cfg[k] = v
	}
	return cfg, nil
})

func main() {
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg, err := loadConfig()
			if err != nil {
				panic(err)
			}
			_ = cfg["host"]
		}()
	}
	wg.Wait()
	cfg, _ := loadConfig()
	fmt.Println(cfg["port"])
}
