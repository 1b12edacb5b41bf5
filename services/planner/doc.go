// Package planner is the agent loop: the context assembler (the only code
// that orders what a model reads), the source-tagged LLM client on
// go-openai, the control loop (observe, decide, act, verify) and the
// model-backed answers the playbook executor asks for over the bus:
// slot values, judgments and scoped repairs.
package planner
