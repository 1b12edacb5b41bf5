module github.com/rote-agent/rote/schema

go 1.26.0

require (
	github.com/goccy/go-yaml v1.19.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/vmihailenco/msgpack/v5 v5.4.1
	golang.org/x/text v0.43.0
)

require (
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)
