package conformance

import (
	"fmt"
	"sort"
	"sync"
)

// Severity is the requirement level of a check.
type Severity string

// Requirement levels. MUST and SHOULD are the specification's (or
// JSON-RPC's); ADVICE is hardening the suite recommends where no rule
// requires it (duplicate members, body limits, Host checks, …): its
// failures are reported apart and do not fail a run unless it is strict.
const (
	MUST   Severity = "MUST"
	SHOULD Severity = "SHOULD"
	ADVICE Severity = "ADVICE"
)

// Area groups checks in summaries.
type Area string

// Areas of the core suite (bindings add their own).
const (
	AreaJSONRPC    Area = "jsonrpc"
	AreaLifecycle  Area = "lifecycle"
	AreaModern     Area = "stateless"
	AreaTools      Area = "tools"
	AreaResources  Area = "resources"
	AreaPrompts    Area = "prompts"
	AreaCompletion Area = "completion"
	AreaLogging    Area = "logging"
	AreaUtilities  Area = "utilities"
	AreaHTTP       Area = "http"
	AreaSSE        Area = "sse"
	AreaStdio      Area = "stdio"
	AreaSecurity   Area = "security"
)

var areaOrder = []Area{AreaJSONRPC, AreaLifecycle, AreaModern, AreaTools, AreaResources, AreaPrompts,
	AreaCompletion, AreaLogging, AreaUtilities, AreaTasks, AreaHTTP, AreaSSE, AreaStdio, AreaSecurity}

// Outcome is the verdict of one check.
type Outcome string

// Outcomes. NotTestable counts as a failure; NotApplicable and Skipped do
// not.
const (
	Pass          Outcome = "pass"
	Fail          Outcome = "fail"
	NotApplicable Outcome = "not-applicable"
	NotTestable   Outcome = "not-testable"
	Skipped       Outcome = "skipped"
)

// Failed reports whether the outcome counts as a failure.
func (o Outcome) Failed() bool { return o == Fail || o == NotTestable }

// Check is one testable requirement.
type Check struct {
	// ID is stable and unique, "area/short-name".
	ID string
	// Requirement states the rule in one line.
	Requirement string
	Area        Area
	Severity    Severity
	// Since and Until bound the revisions the rule applies to (inclusive;
	// empty is open).
	Since, Until string
	// Transports the check applies to (0 means all).
	Transports Transport
	// Binding names the binding the check belongs to ("" for core checks).
	Binding string
	// Standalone checks make their own connection and run even when the
	// suite could not start a session with the server.
	Standalone bool
	// Serial checks change state that other checks could see (list
	// changes, subscriptions, log levels, stored data) or watch for
	// notifications any other check could provoke; they run one at a time
	// after the others, with nothing else running.
	Serial bool
	// Run performs the check.
	Run func(c *C)
}

// AppliesTo reports whether the check applies to rev over tr.
func (ch *Check) AppliesTo(rev string, tr Transport) bool {
	if !inRange(rev, ch.Since, ch.Until) {
		return false
	}
	return ch.Transports == 0 || ch.Transports&tr != 0
}

var (
	regMu    sync.Mutex
	registry = map[string]*Check{}
)

// register adds core checks; it panics on a duplicate id (a programming
// error).
func register(checks ...*Check) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, ch := range checks {
		if _, dup := registry[ch.ID]; dup {
			panic("conformance: duplicate check id " + ch.ID)
		}
		if ch.Run == nil || ch.Requirement == "" || ch.Area == "" || ch.Severity == "" {
			panic("conformance: incomplete check " + ch.ID)
		}
		registry[ch.ID] = ch
	}
}

// Checks returns every registered check (core and all bindings), ordered by
// area and id.
func Checks() []*Check {
	regMu.Lock()
	out := make([]*Check, 0, len(registry))
	for _, ch := range registry {
		out = append(out, ch)
	}
	regMu.Unlock()
	bindMu.Lock()
	for _, b := range bindings {
		out = append(out, b.Checks()...)
	}
	bindMu.Unlock()
	sortChecks(out)
	return out
}

func areaRank(a Area) int {
	for i, x := range areaOrder {
		if x == a {
			return i
		}
	}
	return len(areaOrder)
}

func sortChecks(cs []*Check) {
	sort.SliceStable(cs, func(i, j int) bool {
		ri, rj := areaRank(cs[i].Area), areaRank(cs[j].Area)
		if ri != rj {
			return ri < rj
		}
		if cs[i].Area != cs[j].Area {
			return cs[i].Area < cs[j].Area
		}
		return cs[i].ID < cs[j].ID
	})
}

// Binding is a plug-in set of checks for an application-level contract
// carried over MCP (a set of tools with fixed names and shapes).
type Binding interface {
	// Name is the value of the -binding flag.
	Name() string
	// Checks returns the binding's checks; their Binding field must equal
	// Name.
	Checks() []*Check
}

var (
	bindMu   sync.Mutex
	bindings = map[string]Binding{}
)

// RegisterBinding makes a binding selectable through Options.Bindings. It
// panics when the name is taken or a check does not carry the binding name.
func RegisterBinding(b Binding) {
	bindMu.Lock()
	defer bindMu.Unlock()
	if _, dup := bindings[b.Name()]; dup {
		panic("conformance: duplicate binding " + b.Name())
	}
	for _, ch := range b.Checks() {
		if ch.Binding != b.Name() {
			panic(fmt.Sprintf("conformance: check %s of binding %s has Binding %q", ch.ID, b.Name(), ch.Binding))
		}
	}
	bindings[b.Name()] = b
}

// BindingNames lists the registered bindings.
func BindingNames() []string {
	bindMu.Lock()
	defer bindMu.Unlock()
	var out []string
	for n := range bindings {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func lookupBinding(name string) (Binding, bool) {
	bindMu.Lock()
	defer bindMu.Unlock()
	b, ok := bindings[name]
	return b, ok
}
