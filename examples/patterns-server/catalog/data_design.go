package catalog

func designPatterns() []Pattern {
	return []Pattern{
		{
			ID: "functional-options", Title: "Functional options", Category: Design, Difficulty: Intermediate,
			Tags:        []string{"api-design", "options", "constructors", "configuration"},
			Description: "Configure a constructor with variadic option functions such as WithTimeout(d) that each modify an unexported settings struct, so new options can be added later without breaking callers and the zero-option call stays short.",
			UseWhen:     []string{"A constructor has many optional settings with sensible defaults", "Options need validation or side effects when applied"},
			AvoidWhen:   []string{"A plain options struct would do: it is easier to read, document and print", "There are only one or two settings"},
			Sections: howAndPitfalls(
				"type Option func(*settings); func New(opts ...Option) *Client { s := defaults(); for _, o := range opts { o(&s) } ... }.",
				"Options are opaque values: callers cannot inspect or print the configuration, and documentation is spread across many functions."),
			Related: []string{"options-struct", "constructor-validation"},
		},
		{
			ID: "options-struct", Title: "Options struct", Category: Design, Difficulty: Beginner,
			Tags:        []string{"api-design", "options", "configuration", "zero-value"},
			Description: "Pass optional configuration as a struct pointer where nil means all defaults and each field documents what its zero value does; the constructor copies the struct so later changes by the caller have no effect.",
			UseWhen:     []string{"Configuration is data that callers may load, print or compare", "Zero values can mean 'use the default'"},
			AvoidWhen:   []string{"Zero is a valid setting that differs from the default and you cannot use a pointer field"},
			Sections: howAndPitfalls(
				"func NewServer(addr string, opts *Options) { var o Options; if opts != nil { o = *opts }; o.Timeout = cmp.Or(o.Timeout, 30*time.Second) }.",
				"Keeping the caller's pointer instead of a copy lets them mutate configuration behind your back."),
			Related: []string{"functional-options", "zero-value-helpers"},
		},
		{
			ID: "small-interfaces", Title: "Small interfaces defined by the consumer", Category: Design, Difficulty: Intermediate,
			Tags:        []string{"interfaces", "api-design", "decoupling", "testing"},
			Description: "Declare interfaces in the package that uses them, with only the one to three methods it calls, rather than exporting a large interface next to the implementation; Go's implicit satisfaction makes every fitting type usable.",
			UseWhen:     []string{"A function needs only part of a large concrete type", "You want to substitute fakes in tests"},
			AvoidWhen:   []string{"There is one implementation and no test seam is needed: use the concrete type"},
			Sections: howAndPitfalls(
				"The consumer writes type userGetter interface{ GetUser(ctx, id) (User, error) } and accepts it; the concrete store satisfies it without knowing.",
				"Interfaces declared up front 'for mocking' freeze an API before it is understood."),
			Related: []string{"accept-interfaces-return-structs", "fake-dependencies"},
		},
		{
			ID: "accept-interfaces-return-structs", Title: "Accept interfaces, return structs", Category: Design, Difficulty: Beginner,
			Tags:        []string{"interfaces", "api-design", "constructors"},
			Description: "Functions take the narrowest interface they need, such as io.Reader, but constructors return concrete types so callers get every method and documentation and can later pass them to whatever interface fits.",
			UseWhen:     []string{"Designing constructors and function parameters of a package API"},
			AvoidWhen:   []string{"Several implementations are chosen at runtime, as with hash.Hash, where returning the interface is the point"},
			Sections: howAndPitfalls(
				"func NewParser(r io.Reader) *Parser: flexible input, concrete output.",
				"Returning an interface hides methods added later and forces type assertions."),
			Related: []string{"small-interfaces"},
		},
		{
			ID: "embedding-composition", Title: "Composition with struct embedding", Category: Design, Difficulty: Intermediate,
			Tags:        []string{"embedding", "composition", "structs", "interfaces"},
			Description: "Embed a type in a struct to promote its methods and reuse its behaviour, overriding individual methods by defining them on the outer type, instead of reaching for inheritance.",
			UseWhen:     []string{"Decorating an interface value while changing only one method", "Reusing a helper such as a mutex or a base implementation"},
			AvoidWhen:   []string{"Embedding exported types in exported structs leaks their whole method set into your API"},
			Sections: howAndPitfalls(
				"type loggingStore struct{ Store } forwards every Store method; defining Put on loggingStore overrides just that one.",
				"The embedded value does not know about the outer type: calls from inside it never reach your overrides."),
			Related: []string{"middleware-chain"},
		},
		{
			ID: "constructor-validation", Title: "Constructors that validate", Category: Design, Difficulty: Beginner,
			Tags:        []string{"constructors", "validation", "invariants", "api-design"},
			Description: "Keep fields unexported and create values through a New function that checks invariants and returns an error, so every value that exists is valid and methods need not re-check.",
			UseWhen:     []string{"A type has invariants such as a positive size or a non-empty name"},
			AvoidWhen:   []string{"The zero value can be made useful, which is even better"},
			Sections: howAndPitfalls(
				"func NewRange(lo, hi int) (Range, error) { if lo > hi { return Range{}, fmt.Errorf(...) } ... }.",
				"If the zero value is reachable (var r Range), methods must still behave sensibly on it."),
			Related: []string{"options-struct", "custom-error-type"},
		},
		{
			ID: "strategy-func-types", Title: "Strategies as function types", Category: Design, Difficulty: Beginner,
			Tags:        []string{"functions", "strategy", "interfaces", "callbacks"},
			Description: "When a behaviour has a single method, accept a function type instead of a one-method interface, and give the function type methods if it must also satisfy an interface, as http.HandlerFunc does.",
			UseWhen:     []string{"Callers supply a small piece of behaviour such as a comparison or a retry policy"},
			AvoidWhen:   []string{"The behaviour needs state and several related methods"},
			Sections: howAndPitfalls(
				"type Backoff func(attempt int) time.Duration; callers pass a closure or a named function.",
				"Function values cannot be compared or printed meaningfully, which makes configuration harder to inspect."),
			Related: []string{"http-handler-func", "retry-backoff"},
		},
		{
			ID: "enum-iota", Title: "Enumerations with iota and String", Category: Design, Difficulty: Beginner,
			Tags:        []string{"enums", "iota", "constants", "stringer"},
			Description: "Model a closed set of values as a named integer type with iota constants, start at 1 or reserve 0 for 'unknown', and give it a String method so values print readably in logs and errors.",
			UseWhen:     []string{"A field takes one of a few known values"},
			AvoidWhen:   []string{"Values are exchanged with other systems as text: use string constants so stored data survives reordering"},
			Sections: howAndPitfalls(
				"type Level int; const ( LevelUnknown Level = iota; LevelLow; LevelHigh ); func (l Level) String() string { ... }.",
				"Inserting a constant in the middle renumbers the rest, which breaks persisted values."),
			Related: []string{"state-machine-funcs"},
		},
		{
			ID: "dependency-injection", Title: "Explicit dependency injection", Category: Design, Difficulty: Intermediate,
			Tags:        []string{"dependency-injection", "wiring", "testing", "main"},
			Description: "Construct every dependency in main and pass it down through constructors and struct fields, with no package-level globals or service locators, so the dependency graph is visible and tests can substitute parts.",
			UseWhen:     []string{"An application has databases, clients, loggers and clocks to wire together"},
			AvoidWhen:   []string{"A tiny program where wiring code would dwarf the logic"},
			Sections: howAndPitfalls(
				"main builds logger, store and clock, then app := NewApp(store, logger, clock). Functions receive what they use.",
				"Passing one giant dependency struct everywhere recreates a global by another name."),
			Related: []string{"small-interfaces", "fake-dependencies"},
		},
		{
			ID: "state-machine-funcs", Title: "State machines with state functions", Category: Design, Difficulty: Advanced,
			Tags:        []string{"state-machine", "lexer", "functions", "parsing"},
			Description: "Represent each state as a function that does the work of that state and returns the next state function, as in the text/template lexer, so transitions are plain returns and the driver is a three-line loop.",
			UseWhen:     []string{"Writing lexers, protocol handlers or workflows with many states"},
			AvoidWhen:   []string{"The machine must be serialised or inspected: use an explicit state enum and a transition table"},
			Sections: howAndPitfalls(
				"type stateFn func(*machine) stateFn; for state := start; state != nil; { state = state(m) }.",
				"The current state is an opaque function value; logging it requires extra naming."),
			Related: []string{"enum-iota"},
		},
	}
}
