package catalog

func concurrencyPatterns() []Pattern {
	return []Pattern{
		{
			ID: "worker-pool", Title: "Worker pool", Category: Concurrency, Difficulty: Intermediate,
			Tags:        []string{"goroutines", "channels", "throughput", "waitgroup"},
			Description: "Start a fixed number of goroutines that take jobs from a shared channel and send results to another, so the amount of parallel work stays bounded no matter how many jobs arrive. Closing the jobs channel tells the workers to stop, and a WaitGroup tells the collector when every worker has finished.",
			UseWhen:     []string{"Many independent jobs must be processed with a cap on parallelism", "Each job is expensive enough that goroutine start-up cost is irrelevant"},
			AvoidWhen:   []string{"There are only a handful of jobs: one goroutine per job is simpler", "Jobs depend on each other's results"},
			Sections: howAndPitfalls(
				"A producer sends jobs on an unbuffered or small channel; N workers range over it; after the producer closes the channel and every worker returns, a closer goroutine closes the results channel so the consumer's range loop ends.",
				"Forgetting to close the results channel deadlocks the consumer. Sending results on an unbuffered channel nobody reads leaks workers; tie the pool to a context when the consumer may stop early."),
			Related: []string{"semaphore", "fan-out-fan-in"},
		},
		{
			ID: "pipeline", Title: "Channel pipeline", Category: Concurrency, Difficulty: Intermediate,
			Tags:        []string{"channels", "goroutines", "streaming", "stages"},
			Description: "Chain stages that each read from an inbound channel, transform values and write to an outbound channel they own and close. Data streams through without buffering everything in memory.",
			UseWhen:     []string{"Processing naturally splits into sequential steps over a stream", "You want each step to run concurrently with the others"},
			AvoidWhen:   []string{"The whole data set fits in memory and a loop is clearer", "Stages are so cheap that channel overhead dominates"},
			Sections: howAndPitfalls(
				"Each stage is a function taking a receive-only channel and returning one; it starts a goroutine that ranges over the input and closes its output when done. Pass a context so downstream can stop upstream.",
				"A stage that stops reading without cancelling upstream leaks every goroutine before it. Only the sending stage closes a channel."),
			Related: []string{"fan-out-fan-in", "context-cancellation"},
		},
		{
			ID: "fan-out-fan-in", Title: "Fan-out, fan-in", Category: Concurrency, Difficulty: Intermediate,
			Tags:        []string{"channels", "goroutines", "merge", "parallelism"},
			Description: "Fan out by letting several goroutines read from the same channel, and fan in by merging their output channels into one with a WaitGroup that closes the merged channel when all inputs are drained.",
			UseWhen:     []string{"One pipeline stage is slower than the others and can run in parallel", "Several independent sources must be consumed as one stream"},
			AvoidWhen:   []string{"Output order matters and you do not want to re-sequence results"},
			Sections: howAndPitfalls(
				"merge starts one forwarding goroutine per input channel; each forwards values to the shared output; a final goroutine waits for all of them and closes the output.",
				"Merged output is unordered. Forwarders must select on ctx.Done() or they block forever when the consumer leaves."),
			Related: []string{"pipeline", "worker-pool"},
		},
		{
			ID: "error-group", Title: "Error group with cancellation", Category: Concurrency, Difficulty: Advanced,
			Tags:        []string{"goroutines", "errors", "context", "waitgroup", "cancellation"},
			Description: "Run a set of goroutines as one unit: the first error cancels a shared context so the siblings stop early, and Wait returns that first error once every goroutine has returned. This is the shape of golang.org/x/sync/errgroup built from the standard library.",
			UseWhen:     []string{"Several concurrent sub-tasks all have to succeed", "A failure in one sub-task makes the others pointless"},
			AvoidWhen:   []string{"You need every error, not just the first: collect them and use errors.Join", "Tasks are independent and partial success is useful"},
			Sections: howAndPitfalls(
				"The group holds a WaitGroup, a sync.Once guarding the first error and the cancel function of a derived context. Go wraps the function so an error records itself once and cancels.",
				"Tasks must watch the context, or cancellation achieves nothing. Always call Wait, even after an error, so no goroutine outlives the group."),
			Related: []string{"context-cancellation", "errors-join"},
		},
		{
			ID: "context-cancellation", Title: "Context cancellation and deadlines", Category: Concurrency, Difficulty: Beginner,
			Tags:        []string{"context", "cancellation", "timeout", "deadline"},
			Description: "Pass a context.Context as the first parameter of anything that blocks, and return when ctx.Done() is closed. Derive child contexts with WithTimeout or WithCancel and always call the cancel function.",
			UseWhen:     []string{"An operation blocks on I/O, a channel or another goroutine", "Callers need to bound how long work may take"},
			AvoidWhen:   []string{"Storing a context in a struct field for later use", "Using context values to pass optional parameters"},
			Sections: howAndPitfalls(
				"Blocking code selects on its own channel and ctx.Done(); when the context ends it returns ctx.Err(), which is context.Canceled or context.DeadlineExceeded.",
				"Dropping the cancel function leaks a timer until the parent ends (go vet reports it). Check context.Cause for the reason when you set one."),
			Related: []string{"select-timeout", "error-group"},
		},
		{
			ID: "mutex-guarded-state", Title: "Mutex-guarded state", Category: Concurrency, Difficulty: Beginner,
			Tags:        []string{"mutex", "sync", "shared-state", "data-race"},
			Description: "Keep shared mutable state in a struct next to the sync.Mutex that protects it, make the fields unexported and touch them only from methods that hold the lock.",
			UseWhen:     []string{"Several goroutines read and write the same map or counters", "Operations are short and do not block while holding the lock"},
			AvoidWhen:   []string{"The state is owned by a single goroutine: communicate with channels instead", "You would hold the lock across I/O or a call into unknown code"},
			Sections: howAndPitfalls(
				"Lock at the top of each method and defer Unlock; return copies, not references into the guarded data.",
				"Copying a struct that contains a mutex copies the lock (go vet copylocks). Returning a map that the mutex guards lets callers race on it."),
			Related: []string{"atomic-counter"},
		},
		{
			ID: "semaphore", Title: "Semaphore with a buffered channel", Category: Concurrency, Difficulty: Intermediate,
			Tags:        []string{"channels", "parallelism", "rate", "goroutines"},
			Description: "Use a buffered channel of empty structs as a counting semaphore: send to acquire a slot, receive to release it. It bounds parallelism while still starting one goroutine per item.",
			UseWhen:     []string{"You want per-item goroutines but at most N running at once", "Different call sites share one limit"},
			AvoidWhen:   []string{"A fixed worker pool is simpler for a steady stream of jobs"},
			Sections: howAndPitfalls(
				"Acquire before starting the goroutine (so the loop itself is throttled) and release with defer inside it.",
				"Acquiring inside the goroutine starts every goroutine at once and only throttles the work, not the memory."),
			Related: []string{"worker-pool"},
		},
		{
			ID: "lazy-init-once", Title: "Lazy initialisation with sync.OnceValue", Category: Concurrency, Difficulty: Beginner,
			Tags:        []string{"sync", "once", "initialisation", "singleton"},
			Description: "Compute an expensive value the first time it is needed, exactly once, even under concurrent callers, with sync.OnceValue or sync.OnceValues when the computation can fail.",
			UseWhen:     []string{"A value is costly and often not needed at all", "Package-level state must be initialised safely from many goroutines"},
			AvoidWhen:   []string{"Initialisation can fail transiently and must be retried: Once caches the failure"},
			Sections: howAndPitfalls(
				"sync.OnceValues(f) returns a function that calls f on first use and returns the cached results afterwards; concurrent callers wait for the first call.",
				"A panic inside f is re-raised on every call. Do not call the returned function from inside f."),
			Related: []string{"mutex-guarded-state"},
		},
		{
			ID: "select-timeout", Title: "Select with timeout", Category: Concurrency, Difficulty: Beginner,
			Tags:        []string{"select", "channels", "timeout", "timer"},
			Description: "Wait on a channel for a bounded time by selecting on it together with a timer or a context deadline, so a missing sender cannot hang the receiver forever.",
			UseWhen:     []string{"A reply may never come", "You need a per-operation timeout without a context"},
			AvoidWhen:   []string{"The caller already passes a context: select on ctx.Done() instead of adding another timer"},
			Sections: howAndPitfalls(
				"select blocks until one case is ready; time.After or a time.NewTimer channel fires after the duration.",
				"In a loop, create one timer and Reset it rather than calling time.After on every iteration (cheap since Go 1.23, but still clearer)."),
			Related: []string{"context-cancellation"},
		},
		{
			ID: "atomic-counter", Title: "Atomic counters", Category: Concurrency, Difficulty: Intermediate,
			Tags:        []string{"atomic", "sync", "counter", "metrics"},
			Description: "Use the typed values in sync/atomic (atomic.Int64, atomic.Bool, atomic.Pointer) for single-word state such as counters and flags that many goroutines update without a lock.",
			UseWhen:     []string{"Hot counters or flags updated from many goroutines", "Lock contention shows up in profiles"},
			AvoidWhen:   []string{"Several fields must change together: use a mutex", "Readability matters more than a few nanoseconds"},
			Sections: howAndPitfalls(
				"atomic.Int64 has Add, Load, Store and CompareAndSwap; the zero value is ready to use and go vet catches accidental copies.",
				"Two atomics are not atomic together: a Load of one and a Load of the other can see different moments."),
			Related: []string{"mutex-guarded-state", "copy-on-write-config"},
		},
	}
}
