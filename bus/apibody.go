package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The server reads a JetStream request with encoding/json: a key matches
// a field whatever its case (and by Unicode folding: ſ is s), and of two
// keys for one field the last wins. The gate reads the same body with its
// own decoders, so a body with "config" and "Config", or an
// "Inactive_Threshold", could be judged on one value and applied with
// another. A body the gate forwards therefore spells every key as the
// server writes it (lower case ASCII, digits and _) and none twice; only
// a consumer's metadata, whose keys are the caller's own strings, is
// spared the spelling rule.

// checkAPIBody says why body is no JSON request the gate may forward, or
// "" when it is one (or empty).
func checkAPIBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := checkValue(dec, false); err != nil {
		return "a request the gate does not forward: " + err.Error()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "a request the gate does not forward: more than one JSON value"
	}
	return ""
}

// checkValue reads one value from dec; freeKeys spares an object's keys
// the spelling rule (a metadata map).
func checkValue(dec *json.Decoder, freeKeys bool) error {
	tok, err := dec.Token()
	if err != nil {
		return errors.New("no JSON")
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return errors.New("no JSON")
			}
			key := k.(string)
			if !freeKeys && !apiKey(key) {
				return fmt.Errorf("the key %q is not spelled as the server writes it", key)
			}
			if seen[key] {
				return fmt.Errorf("the key %q twice", key)
			}
			seen[key] = true
			if err := checkValue(dec, key == "metadata"); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := checkValue(dec, false); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	if err != nil {
		return errors.New("no JSON")
	}
	return nil
}

// apiKey reports whether key is spelled as the server's keys are.
func apiKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
