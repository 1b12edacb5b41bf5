module github.com/rote-agent/rote/services/perception

go 1.26
