// Package k8s holds Rote's Kubernetes manifests. It has no code: its test
// decodes every manifest strictly into the Kubernetes API types (an
// unknown or misspelt field fails), and checks what the types cannot:
// that each role has its probes and resources, that names the manifests
// share agree, that the autoscaler watches the consumer planners really
// use, and that nats-server accepts the cluster's configuration.
package k8s
