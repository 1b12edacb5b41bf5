module github.com/rote-agent/rote/services/planner

go 1.26
