package schema

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

func TestDecodeMsgpackBoundsNesting(t *testing.T) {
	// Every kind of value the encoder writes passes the walk.
	values := []any{
		nil, true, false, 1, -1, -33, 200, -200, 70000, -70000, int64(math.MaxInt64), uint64(math.MaxUint64), 1.5, float32(2.5),
		"", "short", string(bytes.Repeat([]byte("x"), 40)), string(bytes.Repeat([]byte("x"), 300)), string(bytes.Repeat([]byte("x"), 70000)),
		[]byte{1, 2}, bytes.Repeat([]byte{7}, 300), bytes.Repeat([]byte{7}, 70000), time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC),
		[]any{1, "a", []any{map[string]any{"k": []any{}}}}, make([]int, 20), make([]int, 70000),
		map[string]any{"a": 1, "b": map[string]any{"c": []any{nil}}}, &RunStarted{},
	}
	for _, v := range values {
		data, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkMsgpack(data); err != nil {
			t.Errorf("%T %.40v: %v", v, v, err)
		}
		if len(data) > 1 {
			if err := checkMsgpack(data[:len(data)-1]); !errors.Is(err, ErrInvalid) {
				t.Errorf("%T cut short: %v", v, err)
			}
		}
	}
	nested := func(depth int) []byte { return append(bytes.Repeat([]byte{0x91}, depth), 0xc0) }
	var v any
	if err := DecodeMsgpack(nested(MaxNesting), &v); err != nil {
		t.Errorf("%d deep: %v", MaxNesting, err)
	}
	start := time.Now()
	for _, bomb := range [][]byte{nested(MaxNesting + 1), nested(1 << 20), append(bytes.Repeat([]byte{0x81, 0xa1, 'k'}, 1<<18), 0xc0)} {
		if err := DecodeMsgpack(bomb, &v); !errors.Is(err, ErrTooLarge) {
			t.Errorf("a %d-byte nesting bomb: %v", len(bomb), err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("refusing the bombs took %v", took)
	}
	for _, bad := range [][]byte{{}, {0xc1}, {0xdd, 0xff, 0xff, 0xff, 0xff}, {0xdb, 0, 0, 0, 9, 'a'}, {0xc9, 0, 0, 0, 1}} {
		if err := DecodeMsgpack(bad, &v); !errors.Is(err, ErrInvalid) {
			t.Errorf("% x: %v", bad, err)
		}
	}
}

// FuzzDecodeMsgpack: any bytes are refused with an *Error or decode, and
// never panic or recurse past the bound.
func FuzzDecodeMsgpack(f *testing.F) {
	for _, v := range []any{nil, 1, "s", []any{1, []any{2}}, map[string]any{"a": map[string]any{"b": []byte{1}}}, &RunStarted{}} {
		data, _ := msgpack.Marshal(v)
		f.Add(data)
	}
	f.Add(bytes.Repeat([]byte{0x91}, 65))
	f.Add(append(bytes.Repeat([]byte{0x81, 0xa1, 'k'}, 70), 0xc0))
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := DecodeMsgpack(data, &v); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %v", err)
			}
		}
	})
}
