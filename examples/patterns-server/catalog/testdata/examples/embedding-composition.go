// Composition by embedding: override one method, inherit the rest.
package main

import "fmt"

type Store interface {
	Get(key string) string
	Put(key, value string)
}

type memStore map[string]string

func (m memStore) Get(k string) string { return m[k] }
func (m memStore) Put(k, v string)     { m[k] = v }

// auditedStore forwards everything to the embedded Store but records writes.
type auditedStore struct {
	Store
	log []string
}

func (a *auditedStore) Put(k, v string) {
	a.log = append(a.log, "put "+k)
	a.Store.Put(k, v)
}

func main() {
	s := &auditedStore{Store: memStore{}}
	var st Store = s
	st.Put("lang", "go")
	fmt.Println(st.Get("lang"), s.log)
}
