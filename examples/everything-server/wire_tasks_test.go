package main

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"
)

// The tasks extension fixtures under 2026-07-28, in a synctest bubble (slow_compute's
// seconds pass on the bubble's clock).

const tasksCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// taskState is what tasks/get (or the creating call) says of a task.
type taskState struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	InputRequests json.RawMessage `json:"inputRequests"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeTask(t *testing.T, raw json.RawMessage) taskState {
	t.Helper()
	var s taskState
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("task %s: %v", raw, err)
	}
	return s
}

func getTask(w *wire, id string) taskState {
	w.t.Helper()
	return decodeTask(w.t, w.result("tasks/get", modernParams(tasksCaps, "", `"taskId":`+quote(id))))
}

func TestTaskFixtures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		// greet never becomes a task.
		assertJSON(t, "greet", w.result("tools/call", modernParams(tasksCaps, "", `"name":"greet","arguments":{"name":"World"}`)),
			completeText("Hello, World!"))
		// Without the extension slow_compute answers at once.
		assertJSON(t, "slow_compute without the extension", w.result("tools/call", modernParams(`{}`, "", `"name":"slow_compute","arguments":{"seconds":1,"label":"sync"}`)),
			completeText(`Computed "sync" in 1s`))

		created := decodeTask(t, w.result("tools/call", modernParams(tasksCaps, "", `"name":"slow_compute","arguments":{"seconds":2,"label":"job"}`)))
		if created.ResultType != "task" || created.TaskID == "" || created.Status != "working" {
			t.Fatalf("slow_compute with the extension: %+v, want a working task", created)
		}
		if s := getTask(w, created.TaskID); s.Status != "working" {
			t.Errorf("right after creation: status %q, want working", s.Status)
		}
		time.Sleep(3 * time.Second) // the bubble's clock: slow_compute has finished
		done := getTask(w, created.TaskID)
		if done.Status != "completed" {
			t.Fatalf("after 3s: %+v, want completed", done)
		}
		assertJSON(t, "slow_compute task result", done.Result, completeText(`Computed "job" in 2s`))

		// failing_job needs the extension; with it, the task completes with isError.
		ex := w.call("tools/call", modernParams(`{}`, "", `"name":"failing_job","arguments":{}`), nil)
		if ex.err == nil || ex.err.Code != -32021 {
			t.Fatalf("failing_job without the extension: result %s error %v, want -32021", ex.result, ex.err)
		}
		assertJSON(t, "-32021 data", ex.err.Data, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)
		failing := decodeTask(t, w.result("tools/call", modernParams(tasksCaps, "", `"name":"failing_job","arguments":{}`)))
		synctest.Wait()
		if s := getTask(w, failing.TaskID); s.Status != "completed" {
			t.Errorf("failing_job: %+v, want completed", s)
		} else {
			assertJSON(t, "failing_job result", s.Result, `{"resultType":"complete","_meta":`+serverInfoMeta+
				`,"content":[{"type":"text","text":"The job failed, as it always does"}],"isError":true}`)
		}
		// protocol_error_job ends failed, with the error and no result.
		crashed := decodeTask(t, w.result("tools/call", modernParams(tasksCaps, "", `"name":"protocol_error_job","arguments":{}`)))
		synctest.Wait()
		if s := getTask(w, crashed.TaskID); s.Status != "failed" || s.Error == nil || s.Error.Code != -32603 || s.Result != nil {
			t.Errorf("protocol_error_job: %+v, want failed with -32603", s)
		}
	})
}

// confirm_delete as a task waits in input_required for tasks/update.
func TestTaskInputFixture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := connectWire(t)
		created := decodeTask(t, w.result("tools/call", modernParams(tasksCaps, "", `"name":"confirm_delete","arguments":{"filename":"mrtr-input.txt"}`)))
		synctest.Wait()
		s := getTask(w, created.TaskID)
		if s.Status != "input_required" {
			t.Fatalf("confirm_delete: %+v, want input_required", s)
		}
		assertJSON(t, "inputRequests", s.InputRequests, `{"confirm":{"method":"elicitation/create","params":{"message":"Delete mrtr-input.txt?",`+
			`"requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}}`)
		w.result("tasks/update", modernParams(tasksCaps, "", `"taskId":`+quote(created.TaskID)+`,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`))
		synctest.Wait()
		s = getTask(w, created.TaskID)
		if s.Status != "completed" {
			t.Fatalf("after tasks/update: %+v, want completed", s)
		}
		assertJSON(t, "confirm_delete result", s.Result, completeText("Deleted mrtr-input.txt (pretend)"))
	})
}
