package main

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// writeJSON prints v as indented JSON.
func writeJSON(app *App, v any) error {
	enc := json.NewEncoder(app.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cell is s on one line, at most n characters, for a table.
func cell(s string, n int) string {
	return schema.Clip(strings.Join(strings.Fields(s), " "), n)
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
