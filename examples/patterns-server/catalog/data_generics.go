package catalog

func genericsPatterns() []Pattern {
	return []Pattern{
		{
			ID: "map-filter-reduce", Title: "Generic map, filter and reduce", Category: Generics, Difficulty: Beginner,
			Tags:        []string{"generics", "slices", "functional", "type-parameters"},
			Description: "Write small type-parameterised helpers such as Map[T, U any](s []T, f func(T) U) []U once instead of repeating the same loop for every element type, and reach for the slices and maps packages before writing your own.",
			UseWhen:     []string{"The same loop shape repeats over different element types", "The slices package lacks the exact helper"},
			AvoidWhen:   []string{"A plain for loop is clearer to the reader, which is often the case in Go"},
			Sections: howAndPitfalls(
				"Type parameters are inferred from arguments: Map(nums, strconv.Itoa). Preallocate the result with make([]U, 0, len(s)).",
				"Chains of helpers allocate a slice per step; for long pipelines use iterators or a single loop."),
			Related: []string{"iterator-funcs", "constraint-interfaces"},
		},
		{
			ID: "constraint-interfaces", Title: "Constraints with type sets", Category: Generics, Difficulty: Intermediate,
			Tags:        []string{"generics", "constraints", "type-sets", "cmp"},
			Description: "Express what a type parameter must support with an interface constraint: a method set, a union of types such as ~int | ~float64, or a standard one like cmp.Ordered or comparable, so one function serves every type that qualifies.",
			UseWhen:     []string{"An algorithm needs operators like < or + on the element type", "Named types with the same underlying type must be accepted"},
			AvoidWhen:   []string{"An ordinary interface parameter already works and no operators are needed"},
			Sections: howAndPitfalls(
				"type Number interface{ ~int | ~int64 | ~float64 }; func Sum[T Number](xs []T) T. The ~ admits named types such as type Celsius float64.",
				"Interfaces with type unions can only be used as constraints, not as ordinary variable types."),
			Related: []string{"map-filter-reduce", "generic-heap"},
		},
		{
			ID: "generic-set", Title: "Generic set type", Category: Generics, Difficulty: Beginner,
			Tags:        []string{"generics", "collections", "maps", "comparable"},
			Description: "Define type Set[T comparable] map[T]struct{} with Add, Has and Delete methods and a constructor, giving a reusable, type-safe set with no per-type code.",
			UseWhen:     []string{"You repeatedly use map[T]bool or map[T]struct{} as a set", "Set operations such as union and intersection appear in several places"},
			AvoidWhen:   []string{"A single map literal in one function is all you need"},
			Sections: howAndPitfalls(
				"Methods on a generic type repeat the type parameter list: func (s Set[T]) Has(v T) bool. maps.Keys returns an iterator for sorted output with slices.Sorted.",
				"Methods cannot declare their own type parameters, so Map on a Set must be a function."),
			Related: []string{"iterator-funcs"},
		},
		{
			ID: "iterator-funcs", Title: "Range-over-func iterators", Category: Generics, Difficulty: Intermediate,
			Tags:        []string{"generics", "iterators", "iter", "range", "streaming"},
			Description: "Return an iter.Seq[T] or iter.Seq2[K, V] function that yields values one at a time, so callers can range over a custom collection or a lazy computation with a plain for loop and stop early with break.",
			UseWhen:     []string{"Exposing traversal of a custom data structure", "Producing values lazily without building a slice"},
			AvoidWhen:   []string{"The caller needs random access or the length up front"},
			Sections: howAndPitfalls(
				"func (l *List[T]) All() iter.Seq[T] { return func(yield func(T) bool) { for n := l.head; n != nil; n = n.next { if !yield(n.v) { return } } } }.",
				"Ignoring yield's false result panics when the caller breaks. Use iter.Pull only when you truly need pull-style access."),
			Related: []string{"generic-set", "map-filter-reduce"},
		},
		{
			ID: "generic-heap", Title: "Typed priority queue over container/heap", Category: Generics, Difficulty: Advanced,
			Tags:        []string{"generics", "heap", "priority-queue", "collections"},
			Description: "Wrap container/heap in a generic PriorityQueue[T] that takes a less function, hiding the any-typed Push and Pop behind a type-safe API.",
			UseWhen:     []string{"Scheduling by deadline or priority", "Top-k selection over a stream"},
			AvoidWhen:   []string{"Sorting once with slices.SortFunc is enough"},
			Sections: howAndPitfalls(
				"An unexported slice type implements heap.Interface with the less function; the exported wrapper calls heap.Push and heap.Pop and converts back to T.",
				"heap.Interface's Push and Pop are called by the heap package; users must call heap.Push, never the method directly."),
			Related: []string{"constraint-interfaces"},
		},
		{
			ID: "zero-value-helpers", Title: "Zero values in generic code", Category: Generics, Difficulty: Beginner,
			Tags:        []string{"generics", "zero-value", "cmp", "defaults"},
			Description: "Return the zero value of a type parameter with var zero T, and pick the first non-zero of several values with cmp.Or, for example to apply defaults to configuration fields.",
			UseWhen:     []string{"A generic function must return 'nothing' alongside ok=false", "Applying defaults to optional settings"},
			AvoidWhen:   []string{"Zero is a meaningful value for the field; use a pointer or an explicit flag"},
			Sections: howAndPitfalls(
				"func First[T any](s []T) (T, bool) { var zero T; if len(s) == 0 { return zero, false }; return s[0], true }. cmp.Or(port, 8080) returns 8080 when port is 0.",
				"cmp.Or needs comparable types. Treating zero as 'unset' cannot express an explicit zero."),
			Related: []string{"options-struct"},
		},
		{
			ID: "pointer-method-constraint", Title: "Constraining the pointer type", Category: Generics, Difficulty: Advanced,
			Tags:        []string{"generics", "constraints", "pointers", "decoding"},
			Description: "When a generic function must create a T and call a pointer-receiver method on it, add a second type parameter PT interface{ *T; Method() } so the compiler knows *T has the method while callers still pass only T.",
			UseWhen:     []string{"Generic decoding or parsing into types whose methods have pointer receivers"},
			AvoidWhen:   []string{"A factory function argument would be simpler for readers"},
			Sections: howAndPitfalls(
				"func Parse[T any, PT interface{ *T; Set(string) error }](s string) (T, error) { var v T; err := PT(&v).Set(s); return v, err }; call it as Parse[Celsius](\"21\").",
				"The idiom surprises readers; document it where it is used."),
			Related: []string{"constraint-interfaces"},
		},
		{
			ID: "typed-sync-map", Title: "Typed wrapper over sync.Map", Category: Generics, Difficulty: Intermediate,
			Tags:        []string{"generics", "concurrency", "sync", "cache", "maps"},
			Description: "Wrap sync.Map in a generic Map[K comparable, V any] so callers get typed Load and Store without assertions, keeping sync.Map for the append-mostly or disjoint-key workloads it is designed for.",
			UseWhen:     []string{"Keys are written once and read many times from many goroutines", "Goroutines work on disjoint key sets"},
			AvoidWhen:   []string{"General read-write maps: a mutex with a plain map is usually faster and clearer"},
			Sections: howAndPitfalls(
				"Load calls m.m.Load and asserts v.(V) once, inside the wrapper; LoadOrStore gives safe lazy insertion.",
				"sync.Map has no length and its Range is not a snapshot."),
			Related: []string{"mutex-guarded-state", "memoize-cache"},
		},
	}
}
