package schema

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// CanonicalJSON re-encodes a JSON document so that equal documents give
// equal bytes: object keys sorted, no insignificant white space, numbers in
// one spelling (1.0, 1e0 and 1 are all "1"). Invalid JSON, or trailing
// data after the document, is an *Error with CodeInvalid.
func CanonicalJSON(data []byte) ([]byte, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	return canonicalEncode(v)
}

// decodeJSON decodes one JSON document, keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Errorf(CodeInvalid, "invalid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Errorf(CodeInvalid, "invalid JSON: data after the document")
	}
	return normalizeNumbers(v), nil
}

// canonicalEncode marshals a decoded value; encoding/json already sorts
// map keys and writes no white space.
func canonicalEncode(v any) ([]byte, error) {
	b, err := json.Marshal(normalizeNumbers(v))
	if err != nil {
		return nil, Errorf(CodeInvalid, "encode JSON: %v", err)
	}
	return b, nil
}

// normalizeNumbers rewrites every number inside v to its one spelling.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return normalizeNumber(string(x))
	case float64:
		return normalizeNumber(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	}
	return v
}

func normalizeNumber(s string) json.Number {
	if !strings.ContainsAny(s, ".eE") {
		if n, ok := new(big.Int).SetString(s, 10); ok {
			return json.Number(n.String())
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return json.Number(s)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
