package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// InputRequest is one thing a handler needs from the client: an elicitation, a
// sampling call or the client's roots. Build them with ElicitInput, SamplingInput and
// RootsInput.
type InputRequest struct {
	Method string // "elicitation/create", "sampling/createMessage" or "roots/list"
	Params any
}

// ElicitInput asks the user for input (elicitation/create).
func ElicitInput(p *ElicitParams) InputRequest {
	return InputRequest{Method: "elicitation/create", Params: p}
}

// SamplingInput asks the client's model for a message (sampling/createMessage).
func SamplingInput(p *CreateMessageParams) InputRequest {
	return InputRequest{Method: "sampling/createMessage", Params: p}
}

// RootsInput asks for the client's roots (roots/list).
func RootsInput() InputRequest { return InputRequest{Method: "roots/list", Params: struct{}{}} }

// InputResults holds the answers to a set of InputRequests, by key.
type InputResults struct {
	raw map[string]json.RawMessage
}

// Keys lists the keys answered.
func (r *InputResults) Keys() []string {
	keys := make([]string, 0, len(r.raw))
	for k := range r.raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Elicit returns the answer to the elicitation asked under key.
func (r *InputResults) Elicit(key string) (*ElicitResult, error) {
	var v ElicitResult
	return &v, r.decode(key, &v)
}

// Sampling returns the answer to the sampling request asked under key.
func (r *InputResults) Sampling(key string) (*CreateMessageResult, error) {
	var v CreateMessageResult
	return &v, r.decode(key, &v)
}

// Roots returns the answer to the roots request asked under key.
func (r *InputResults) Roots(key string) (*ListRootsResult, error) {
	var v ListRootsResult
	return &v, r.decode(key, &v)
}

func (r *InputResults) decode(key string, v any) error {
	raw, ok := r.raw[key]
	if !ok {
		return fmt.Errorf("mcp: no input answered under %q", key)
	}
	return json.Unmarshal(raw, v)
}

// Input obtains everything in reqs from the client and returns the answers by key.
// It works the same way in both eras:
//
//   - in a session negotiated through initialize, each request is sent to the client
//     (elicitation/create, sampling/createMessage, roots/list) on the stream of the
//     request being handled, one after the other;
//   - under 2026-07-28 the handler's request is answered with an input_required
//     result listing what is still missing, and the client retries the request with
//     the answers. The handler runs again from the start and Input then returns them.
//     When Input returns an error, return it from the handler unchanged: the library
//     turns the "input required" error into that result.
//
// A handler may call Input several times (several rounds); keys must be unique over
// the whole handler run, and a handler must ask for the same things in the same order
// when it runs again. Requests the client did not declare the capability for fail
// with ErrCapabilityNotSupported; check ClientCapabilitiesFor first to adapt.
func (ss *ServerSession) Input(ctx context.Context, reqs map[string]InputRequest) (*InputResults, error) {
	ri := requestInfoFrom(ctx)
	rev, caps := ss.revisionFor(ctx)
	if rev == nil || caps == nil {
		return nil, ErrNotInitialized
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// Validate every request (capabilities, schemas) before asking for any.
	prepared := make(map[string]any, len(reqs))
	for _, k := range keys {
		p, err := prepareInput(rev, caps, reqs[k])
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", k, err)
		}
		prepared[k] = p
	}
	if ri != nil {
		if t := ri.task.Load(); t != nil && t.modern {
			return t.awaitInput(ctx, keys, reqs, prepared)
		}
	}
	if rev.stateless {
		if ri == nil || ri.mrtr == nil {
			return nil, fmt.Errorf("mcp: input requests are only possible while handling tools/call, prompts/get or resources/read")
		}
		return ri.mrtr.resolve(keys, reqs, prepared)
	}
	out := &InputResults{raw: map[string]json.RawMessage{}}
	for _, k := range keys {
		var raw json.RawMessage
		if err := ss.call(ctx, reqs[k].Method, prepared[k], &raw); err != nil {
			return nil, fmt.Errorf("input %q: %w", k, err)
		}
		if err := checkInputAnswer(reqs[k], prepared[k], raw); err != nil {
			return nil, fmt.Errorf("input %q: %w", k, err)
		}
		out.raw[k] = raw
	}
	return out, nil
}

// prepareInput checks one request against the revision and the client's declared
// capabilities and returns the params to send.
func prepareInput(rev *revision, caps *ClientCapabilities, r InputRequest) (any, error) {
	switch r.Method {
	case "elicitation/create":
		p, ok := r.Params.(*ElicitParams)
		if !ok || p == nil {
			return nil, errors.New("elicitation needs *ElicitParams")
		}
		return prepareElicit(rev, caps, p)
	case "sampling/createMessage":
		p, ok := r.Params.(*CreateMessageParams)
		if !ok || p == nil {
			return nil, errors.New("sampling needs *CreateMessageParams")
		}
		return p, prepareSampling(rev, caps, p)
	case "roots/list":
		if caps.Roots == nil {
			return nil, fmt.Errorf("roots: %w: the client did not declare roots", ErrCapabilityNotSupported)
		}
		return struct{}{}, nil
	}
	return nil, fmt.Errorf("unknown input method %q", r.Method)
}

// checkInputAnswer validates a client's answer: its shape, and for a form
// elicitation that was accepted, the content against the requested schema.
func checkInputAnswer(r InputRequest, prepared any, raw json.RawMessage) error {
	switch r.Method {
	case "elicitation/create":
		var res ElicitResult
		if err := strictObject(raw, &res); err != nil {
			return err
		}
		switch res.Action {
		case "accept", "decline", "cancel":
		default:
			return fmt.Errorf("unknown elicitation action %q", res.Action)
		}
		p := prepared.(*ElicitParams)
		if res.Action == "accept" && p.Mode != ElicitModeURL && len(p.RequestedSchema) > 0 {
			s, err := compileToolSchema(p.RequestedSchema)
			if err != nil {
				return err
			}
			content, _ := json.Marshal(res.Content)
			if res.Content == nil {
				content = []byte("{}")
			}
			if err := s.validateJSON(content); err != nil {
				return fmt.Errorf("elicitation content does not match the requested schema: %v", err)
			}
		}
	case "sampling/createMessage":
		var res CreateMessageResult
		if err := strictObject(raw, &res); err != nil {
			return err
		}
		if res.Model == "" || res.Role == "" {
			return errors.New("sampling result needs role and model")
		}
	case "roots/list":
		var res ListRootsResult
		if err := strictObject(raw, &res); err != nil {
			return err
		}
		if res.Roots == nil {
			return errors.New("roots result needs roots")
		}
	}
	return nil
}

// strictObject decodes raw into v, refusing anything but a JSON object.
func strictObject(raw json.RawMessage, v any) error {
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("answer must be a JSON object, got %.40s", raw)
	}
	return json.Unmarshal(raw, v)
}

// prepareElicit checks an elicitation against the revision and capabilities.
func prepareElicit(rev *revision, caps *ClientCapabilities, p *ElicitParams) (*ElicitParams, error) {
	if !rev.elicitation {
		return nil, fmt.Errorf("elicitation: %w (revision %s has no elicitation)", ErrCapabilityNotSupported, rev.name)
	}
	if caps.Elicitation == nil {
		return nil, fmt.Errorf("elicitation: %w: the client did not declare elicitation", ErrCapabilityNotSupported)
	}
	req := *p
	switch req.Mode {
	case "", ElicitModeForm:
		if !caps.Elicitation.supportsForm() {
			return nil, fmt.Errorf("elicitation: %w: the client did not declare form mode", ErrCapabilityNotSupported)
		}
		if err := validateElicitSchema(req.RequestedSchema); err != nil {
			return nil, fmt.Errorf("elicitation: %w", err)
		}
		if !rev.elicitURL {
			req.Mode = "" // the member does not exist before 2025-11-25
		}
	case ElicitModeURL:
		if !rev.elicitURL || !caps.Elicitation.supportsURL() {
			return nil, fmt.Errorf("elicitation: %w: the client did not declare URL mode", ErrCapabilityNotSupported)
		}
		if rev.stateless {
			req.ElicitationID = "" // gone in 2026-07-28: correlation lives in requestState
			if req.URL == "" || req.Message == "" {
				return nil, errors.New("elicitation: URL mode needs message and url")
			}
		} else if req.URL == "" || req.ElicitationID == "" || req.Message == "" {
			return nil, errors.New("elicitation: URL mode needs message, url and elicitationId")
		}
		req.RequestedSchema = nil
	default:
		return nil, fmt.Errorf("elicitation: unknown mode %q", req.Mode)
	}
	return &req, nil
}

// prepareSampling checks a sampling request against the revision and capabilities.
func prepareSampling(rev *revision, caps *ClientCapabilities, p *CreateMessageParams) error {
	if caps.Sampling == nil {
		return fmt.Errorf("sampling: %w: the client did not declare sampling", ErrCapabilityNotSupported)
	}
	if (len(p.Tools) > 0 || p.ToolChoice != nil) && (!rev.samplingTools || caps.Sampling.Tools == nil) {
		return fmt.Errorf("sampling: %w: the client did not declare sampling.tools", ErrCapabilityNotSupported)
	}
	if p.IncludeContext != "" && p.IncludeContext != "none" && caps.Sampling.Context == nil {
		return fmt.Errorf("sampling: %w: the client did not declare sampling.context", ErrCapabilityNotSupported)
	}
	if p.MaxTokens <= 0 {
		return errors.New("sampling: maxTokens must be positive")
	}
	if err := checkToolLoop(p.Messages); err != nil {
		return fmt.Errorf("sampling: %w", err)
	}
	return nil
}
