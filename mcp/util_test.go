package mcp

import (
	"context"
	"encoding/json"
)

type ctxT = context.Context

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
