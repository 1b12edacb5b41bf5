package lab

import (
	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/cmd/rote/node"
)

// Offline is the offline scripted model answering the suites' tasks with
// the simulated latency latency (scripted.ParseLatency's form: "",
// "none", "hosted" or first=...,prefill=...,decode=...), labelled as
// such. A latency that does not parse is an error.
func Offline(latency string) (node.OfflineModel, error) {
	l, err := scripted.ParseLatency(latency)
	if err != nil {
		return nil, err
	}
	return OracleModel(suite.Oracle(), l), nil
}

// OracleModel is the scripted model answering with oracle, after the
// simulated latency l.
func OracleModel(oracle scripted.Oracle, l scripted.Latency) node.OfflineModel {
	return func() (*node.Offline, error) {
		srv := scripted.NewServer(oracle)
		srv.SetLatency(l)
		return &node.Offline{Handler: srv, Model: scripted.ModelName, Label: Label(l)}, nil
	}
}

// Label names the scripted model with latency l, as every output that
// used it must.
func Label(l scripted.Latency) string {
	if l.IsZero() {
		return scripted.Label
	}
	return scripted.Label + ", " + l.Describe()
}
