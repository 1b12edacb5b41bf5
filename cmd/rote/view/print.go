package view

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// JSON prints v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Cell is s on one line, at most n characters, for a table.
func Cell(s string, n int) string {
	return schema.Clip(strings.Join(strings.Fields(s), " "), n)
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
