module github.com/rote-agent/rote/portal

go 1.26
