module github.com/rote-agent/rote/services/actuator

go 1.26
