package engine

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// workerEnv makes the test binary a query process (ServeDuckWorker) for the
// DuckProc tests, as the server's binary is one with -engine-worker.
const workerEnv = "CATALOG_ENGINE_TEST_WORKER"

func TestMain(m *testing.M) {
	switch os.Getenv(workerEnv) {
	case "noisy":
		// Output on the worker's standard output must not reach its answers.
		fmt.Println(`{"ok":true}`)
		fmt.Println("noise")
		fallthrough
	case "1":
		os.Exit(ServeDuckWorker(os.Stdin, WorkerAnswers()))
	}
	os.Exit(m.Run())
}

// testWorker starts this test binary as a query process.
func testWorker() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	return cmd
}
