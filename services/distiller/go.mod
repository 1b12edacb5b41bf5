module github.com/rote-agent/rote/services/distiller

go 1.26.0

require github.com/rote-agent/rote/schema v0.0.0

require (
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
)

replace github.com/rote-agent/rote/schema => ../../schema

replace github.com/rote-agent/rote/bus => ../../bus
