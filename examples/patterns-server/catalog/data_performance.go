package catalog

func performancePatterns() []Pattern {
	return []Pattern{
		{
			ID: "preallocate-slices", Title: "Preallocating slices and maps", Category: Performance, Difficulty: Beginner,
			Tags:        []string{"performance", "allocations", "slices", "maps", "capacity"},
			Description: "When the final size is known or bounded, create slices with make([]T, 0, n) and maps with make(map[K]V, n) so appends and inserts do not repeatedly grow and copy the backing storage.",
			UseWhen:     []string{"Transforming one collection into another of known size", "Profiles show time in growslice or map growth"},
			AvoidWhen:   []string{"The size is unknown and usually small: guessing large wastes memory"},
			Sections: howAndPitfalls(
				"out := make([]string, 0, len(in)); for _, v := range in { out = append(out, f(v)) }.",
				"make([]T, n) followed by append produces n zero values first, a common bug."),
			Related: []string{"benchmark-loop", "strings-builder"},
		},
		{
			ID: "strings-builder", Title: "Building strings with strings.Builder", Category: Performance, Difficulty: Beginner,
			Tags:        []string{"performance", "strings", "allocations", "text"},
			Description: "Assemble strings in loops with strings.Builder, growing it once with Grow when the size is predictable, instead of repeated += concatenation, which copies the whole string on every step.",
			UseWhen:     []string{"Concatenating inside a loop", "Rendering text output piece by piece"},
			AvoidWhen:   []string{"Joining a slice you already have: strings.Join is clearer", "Two or three fixed pieces: + is fine"},
			Sections: howAndPitfalls(
				"var b strings.Builder; b.Grow(n); b.WriteString(...); return b.String() — String does not copy.",
				"Copying a non-zero Builder panics on the next write; pass *strings.Builder."),
			Related: []string{"preallocate-slices", "buffered-writes"},
		},
		{
			ID: "sync-pool-buffers", Title: "Reusing buffers with sync.Pool", Category: Performance, Difficulty: Advanced,
			Tags:        []string{"performance", "sync", "pool", "allocations", "gc"},
			Description: "Keep short-lived, frequently allocated objects such as encoding buffers in a sync.Pool so hot paths reuse them instead of allocating, which lowers garbage-collection pressure under load.",
			UseWhen:     []string{"Profiles show heavy allocation of the same temporary object on a hot path"},
			AvoidWhen:   []string{"Objects are long-lived or rarely allocated", "Objects vary wildly in size: one huge buffer can be pinned forever; drop oversized ones"},
			Sections: howAndPitfalls(
				"var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}; b := bufPool.Get().(*bytes.Buffer); b.Reset(); defer bufPool.Put(b).",
				"Never keep a reference to a pooled object after Put. Store pointers, not values, to avoid an allocation on Put."),
			Related: []string{"benchmark-loop"},
		},
		{
			ID: "buffered-writes", Title: "Buffered writes with bufio.Writer", Category: Performance, Difficulty: Intermediate,
			Tags:        []string{"performance", "io", "bufio", "syscalls"},
			Description: "Wrap files, sockets and os.Stdout in bufio.Writer when writing many small pieces, turning thousands of system calls into a few, and always Flush and check its error at the end.",
			UseWhen:     []string{"Writing output line by line or field by field"},
			AvoidWhen:   []string{"Interactive output that must appear immediately, unless you flush at the right points"},
			Sections: howAndPitfalls(
				"w := bufio.NewWriter(f); defer-less: write everything, then if err := w.Flush(); err != nil { ... }.",
				"Forgetting Flush silently loses the tail of the output. Write errors are sticky and surface at Flush."),
			Related: []string{"strings-builder", "defer-close-errors"},
		},
		{
			ID: "memoize-cache", Title: "Memoising expensive calls", Category: Performance, Difficulty: Intermediate,
			Tags:        []string{"performance", "cache", "memoization", "concurrency"},
			Description: "Cache the results of a pure, expensive function keyed by its input, guarding the map with a mutex and storing a per-key sync.OnceValue so concurrent callers for the same key compute it only once.",
			UseWhen:     []string{"The same inputs recur and the function is deterministic", "Duplicate concurrent computations waste resources"},
			AvoidWhen:   []string{"Inputs are unbounded and the cache would grow forever: add eviction or a size bound"},
			Sections: howAndPitfalls(
				"Lock, look up or insert a sync.OnceValue for the key, unlock, then call it outside the lock so slow computations do not block other keys.",
				"Caching errors forever turns transient failures permanent."),
			Related: []string{"lazy-init-once", "typed-sync-map"},
		},
		{
			ID: "copy-on-write-config", Title: "Copy-on-write with atomic.Pointer", Category: Performance, Difficulty: Advanced,
			Tags:        []string{"performance", "atomic", "configuration", "concurrency", "read-mostly"},
			Description: "For read-mostly data such as configuration or routing tables, keep an immutable snapshot behind an atomic.Pointer: readers Load it without locks, and writers build a modified copy and Store or CompareAndSwap it.",
			UseWhen:     []string{"Reads vastly outnumber writes and must never block", "Hot reloading configuration"},
			AvoidWhen:   []string{"Frequent writes to large structures, where copying dominates"},
			Sections: howAndPitfalls(
				"var cfg atomic.Pointer[Config]; readers c := cfg.Load(); writers copy *c, modify the copy, cfg.Store(&next).",
				"Snapshots must be treated as immutable, including maps and slices inside them. Concurrent writers need CompareAndSwap or a mutex."),
			Related: []string{"atomic-counter", "mutex-guarded-state"},
		},
		{
			ID: "values-over-pointers", Title: "Small values instead of pointers", Category: Performance, Difficulty: Advanced,
			Tags:        []string{"performance", "escape-analysis", "allocations", "gc"},
			Description: "Return and store small structs by value when they do not need shared mutation, so they can live on the stack or inline in slices; check decisions with go build -gcflags=-m, which reports what escapes to the heap.",
			UseWhen:     []string{"Small immutable structs such as points, ranges or ids", "Slices of many small elements, where []T beats []*T for locality"},
			AvoidWhen:   []string{"Large structs copied often, or values that must be shared and mutated"},
			Sections: howAndPitfalls(
				"func NewPoint(x, y int) Point returns a value; a []Point is one contiguous allocation instead of one per element.",
				"Storing a value in an interface may still allocate. Measure before and after."),
			Related: []string{"preallocate-slices", "benchmark-loop"},
		},
		{
			ID: "strconv-over-fmt", Title: "strconv instead of fmt for conversions", Category: Performance, Difficulty: Beginner,
			Tags:        []string{"performance", "strconv", "strings", "allocations"},
			Description: "Convert numbers to and from strings with strconv (Itoa, AppendInt, ParseInt) rather than fmt.Sprintf and fmt.Sscan, which parse a format string and box arguments in interfaces on every call.",
			UseWhen:     []string{"Conversions in loops or request hot paths"},
			AvoidWhen:   []string{"Formatting mixes text and several values, where Sprintf is clearer and the cost is irrelevant"},
			Sections: howAndPitfalls(
				"strconv.AppendInt(buf, n, 10) writes into an existing buffer with no allocation.",
				"strconv.Atoi returns an error for out-of-range values; do not ignore it."),
			Related: []string{"strings-builder"},
		},
	}
}
