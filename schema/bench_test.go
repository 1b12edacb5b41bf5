package schema_test

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

// BenchmarkMarshal measures validate + msgpack encode per event type.
func BenchmarkMarshal(b *testing.B) {
	for _, ev := range sampleEvents(b) {
		b.Run(ev.EventType(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := schema.Marshal(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnmarshal measures msgpack decode + validate per event type.
func BenchmarkUnmarshal(b *testing.B) {
	for _, ev := range sampleEvents(b) {
		data, err := schema.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(ev.EventType(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := schema.Unmarshal(ev.EventType(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
