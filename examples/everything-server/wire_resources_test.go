package main

import (
	"encoding/json"
	"testing"
	"testing/synctest"
)

func TestResources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		// In registration order: the suite's caching scenario reads the first listed
		// resource, and a plain text one belongs there.
		assertJSON(t, "resources/list", w.result("resources/list", `{}`), `{"resources":[
			{"uri":"test://static-text","name":"static-text","description":"A static text resource","mimeType":"text/plain"},
			{"uri":"test://static-binary","name":"static-binary","description":"A static binary resource (a 1x1 red PNG)","mimeType":"image/png"},
			{"uri":"test://watched-resource","name":"watched-resource","description":"A resource clients may subscribe to","mimeType":"text/plain"}]}`)
		assertJSON(t, "resources/templates/list", w.result("resources/templates/list", `{}`), `{"resourceTemplates":[
			{"uriTemplate":"test://template/{id}/data","name":"template-data","description":"Data for any id","mimeType":"application/json"}]}`)

		reads := []struct{ uri, want string }{
			{"test://static-text", `{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}`},
			{"test://static-binary", `{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"` + pngB64 + `"}]}`},
			{"test://watched-resource", `{"contents":[{"uri":"test://watched-resource","mimeType":"text/plain","text":"Watched resource content"}]}`},
			{"test://template/123/data", `{"contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}]}`},
			// A value that needs escaping stays valid JSON inside the text.
			{"test://template/a%22b/data", `{"contents":[{"uri":"test://template/a%22b/data","mimeType":"application/json","text":"{\"id\":\"a\\\"b\",\"templateTest\":true,\"data\":\"Data for ID: a\\\"b\"}"}]}`},
		}
		for _, r := range reads {
			assertJSON(t, "read "+r.uri, w.result("resources/read", `{"uri":"`+r.uri+`"}`), r.want)
		}
		ex := w.call("resources/read", `{"uri":"test://nonexistent-resource-for-conformance-testing"}`, nil)
		if ex.err == nil || ex.err.Code != -32002 {
			t.Errorf("read of an unknown resource: result %s error %v, want -32002", ex.result, ex.err)
		}

		assertJSON(t, "subscribe", w.result("resources/subscribe", `{"uri":"test://watched-resource"}`), `{}`)
		assertJSON(t, "unsubscribe", w.result("resources/unsubscribe", `{"uri":"test://watched-resource"}`), `{}`)
	})
}

func TestPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		// Compared whatever the listing order (by name or by registration).
		assertJSON(t, "prompts/list", sortListByName(t, w.result("prompts/list", `{}`), "prompts"), `{"prompts":[
			{"name":"test_input_required_result_prompt","description":"Asks the user for context (user_context) before rendering"},
			{"name":"test_prompt_with_arguments","description":"A prompt with two required arguments","arguments":[
				{"name":"arg1","description":"First argument","required":true},
				{"name":"arg2","description":"Second argument","required":true}]},
			{"name":"test_prompt_with_embedded_resource","description":"A prompt that embeds a resource","arguments":[
				{"name":"resourceUri","description":"URI of the resource to embed","required":true}]},
			{"name":"test_prompt_with_image","description":"A prompt that includes an image"},
			{"name":"test_simple_prompt","description":"A prompt without arguments"}]}`)

		gets := []struct{ params, want string }{
			{`{"name":"test_simple_prompt"}`,
				`{"messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]}`},
			{`{"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}}`,
				`{"messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}]}`},
			{`{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}}`,
				`{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},` +
					`{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]}`},
			{`{"name":"test_prompt_with_image"}`,
				`{"messages":[{"role":"user","content":{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}},` +
					`{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]}`},
		}
		for _, g := range gets {
			assertJSON(t, "prompts/get "+g.params, w.result("prompts/get", g.params), g.want)
		}
		ex := w.call("prompts/get", `{"name":"test_prompt_with_arguments","arguments":{"arg1":"only one"}}`, nil)
		if ex.err == nil || ex.err.Code != -32602 {
			t.Errorf("missing required argument: result %s error %v, want -32602", ex.result, ex.err)
		}
	})
}

func TestCompletion(t *testing.T) {
	tests := []struct{ params, want string }{
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"}}`,
			`{"completion":{"values":["test","testValue1","testing"],"total":3}}`},
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":"s"}}`,
			`{"completion":{"values":["sample"],"total":1}}`},
		{`{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"zzz"}}`,
			`{"completion":{"values":[],"total":0}}`},
		{`{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}}`,
			`{"completion":{"values":["1","123"],"total":2}}`},
	}
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		for _, tc := range tests {
			assertJSON(t, "complete "+tc.params, w.result("completion/complete", tc.params), tc.want)
		}
		ex := w.call("completion/complete", `{"ref":{"type":"ref/prompt","name":"no_such_prompt"},"argument":{"name":"a","value":""}}`, nil)
		if ex.err == nil || ex.err.Code != -32602 {
			t.Errorf("unknown prompt: result %s error %v, want -32602", ex.result, ex.err)
		}
	})
}

// test_trigger_resource_update tells a subscribed session about the update, and an
// unsubscribed one nothing.
func TestResourceUpdateTrigger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _ := newWire(t, allCaps)
		trigger := func() []string {
			ex := w.call("tools/call", `{"name":"test_trigger_resource_update","arguments":{"uri":"test://watched-resource"}}`, nil)
			if ex.err != nil {
				t.Fatalf("trigger: %v", ex.err)
			}
			var got []string
			for _, n := range ex.notes {
				if n.Method == "notifications/resources/updated" {
					got = append(got, string(n.Params))
				}
			}
			return got
		}
		if got := trigger(); len(got) != 0 {
			t.Errorf("not subscribed, got updates %v", got)
		}
		w.result("resources/subscribe", `{"uri":"test://watched-resource"}`)
		got := trigger()
		if len(got) != 1 {
			t.Fatalf("subscribed: updates %v, want one", got)
		}
		assertJSON(t, "update", json.RawMessage(got[0]), `{"uri":"test://watched-resource"}`)
		w.result("resources/unsubscribe", `{"uri":"test://watched-resource"}`)
		if got := trigger(); len(got) != 0 {
			t.Errorf("unsubscribed, got updates %v", got)
		}
	})
}
