package engine

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/benchdata"
)

// workerArg, the test binary's only argument, makes it a query process
// (ServeDuckWorker) for the DuckProc tests, as the server's binary is one with
// -engine-worker; workerArg+"-noisy" one that writes to its standard output,
// workerArg+"-slow" one that takes slowStart to start, workerArg+"-stuck" one
// that does not start within duckStartLimit, workerArg+"-fatal" one whose
// database fatalTrigger invalidates, workerArg+"-fakesig" one that prints a
// signal-like line on its standard output and exits with status 2,
// workerArg+"-loadgarbled" one that garbles the answers of load steps whose SQL
// holds garbleJunk or garbleShape (serveLoadGarbled). (An
// argument, not an environment variable: the worker's environment is
// trimmed.)
const workerArg = "-engine-test-worker"

// fatalTrigger is the query a worker started as workerArg+"-fatal" answers
// with a DuckDB INTERNAL error that invalidates its database.
const fatalTrigger = "SELECT 'invalidate'"

// slowStart is how long a worker started as workerArg+"-slow" takes to start:
// long enough that a test's "answered before it started" holds on a loaded
// machine, where answering a cancelled caller may itself take a second.
const slowStart = 2 * time.Second

func TestMain(m *testing.M) {
	arg := ""
	if len(os.Args) == 2 {
		arg = os.Args[1]
	}
	switch arg {
	case workerArg + "-fatal":
		// The query fatalTrigger invalidates the process's database, as a
		// DuckDB INTERNAL error in a query's execution does (the gate refuses
		// checkpoint in a query: it is called here without it).
		workerQueryHook = func(d *Duck, sqlText string) error {
			if sqlText != fatalTrigger {
				return nil
			}
			_, err := d.db.Exec("SELECT * FROM checkpoint('system')")
			if err == nil {
				return errors.New("checkpoint('system') did not fail")
			}
			return duckErr(err)
		}
		os.Exit(ServeDuckWorker(os.Stdin, WorkerAnswers()))
	case workerArg + "-stuck":
		time.Sleep(2 * duckStartLimit) // killed before: by its model or at duckStartLimit
		os.Exit(ServeDuckWorker(os.Stdin, WorkerAnswers()))
	case workerArg + "-slow":
		time.Sleep(slowStart)
		os.Exit(ServeDuckWorker(os.Stdin, WorkerAnswers()))
	case workerArg + "-fakesig":
		// A line on its standard output that reads as the Go runtime's
		// signal line, then an exit: not a crash by a signal.
		fmt.Println("SIGFAKE: printed on standard output")
		os.Exit(2)
	case workerArg + "-garbled":
		os.Exit(serveGarbled())
	case workerArg + "-loadgarbled":
		os.Exit(serveLoadGarbled())
	case workerArg + "-noisy":
		// Output on the worker's standard output must not reach its answers.
		fmt.Println(`{"ok":true}`)
		fmt.Println("noise")
		fallthrough
	case workerArg:
		os.Exit(ServeDuckWorker(os.Stdin, WorkerAnswers()))
	}
	flag.Parse()
	// BenchmarkDuckProcRoundTrip compares with the server's process: the same
	// allocator settings as the query processes.
	if code, ran := benchdata.WithMalloc(WorkerMalloc(0)); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// testWorker starts this test binary as a query process.
func testWorker() *exec.Cmd { return workerAs("")() }

// workerAs starts this test binary as a query process of the kind ("-slow",
// "-stuck", "-noisy"; "" for a plain one).
func workerAs(kind string) func() *exec.Cmd {
	return func() *exec.Cmd { return exec.Command(os.Args[0], workerArg+kind) }
}
