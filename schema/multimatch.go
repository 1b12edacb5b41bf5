package schema

import (
	"cmp"
	"maps"
	"slices"
)

// automaton finds every occurrence of many patterns in one pass over a
// text (Aho-Corasick): the hundreds of forms a secret takes are looked
// for together. It is kept flat, since a set of secrets makes a hundred
// thousand nodes: each node's edges are a run of edges sorted by byte
// (the root's a table), and the patterns that end at it a run of outs.
type automaton struct {
	root  [256]int32
	nodes []acNode
	edges []acEdge
	outs  []int32
	lens  []int // each pattern's length
}

type acNode struct {
	fail                int32
	edgeFrom, edgeCount int32
	outFrom, outCount   int32
}

type acEdge struct {
	c  byte
	to int32
}

// newAutomaton builds the automaton over patterns (none empty).
func newAutomaton(patterns [][]byte) *automaton {
	// Built as a trie of maps, then laid flat.
	next := []map[byte]int32{nil}
	out := [][]int32{nil}
	lens := make([]int, len(patterns))
	for id, p := range patterns {
		lens[id] = len(p)
		n := int32(0)
		for _, c := range p {
			child, ok := next[n][c]
			if !ok {
				child = int32(len(next))
				next, out = append(next, nil), append(out, nil)
				if next[n] == nil {
					next[n] = map[byte]int32{}
				}
				next[n][c] = child
			}
			n = child
		}
		out[n] = append(out[n], int32(id))
	}
	// Failure links, breadth first: a node's is the longest proper suffix
	// of its path that is also a path from the root.
	fail := make([]int32, len(next))
	queue := make([]int32, 0, len(next))
	for _, c := range slices.Sorted(maps.Keys(next[0])) {
		queue = append(queue, next[0][c])
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range slices.Sorted(maps.Keys(next[n])) {
			child := next[n][c]
			for f := fail[n]; ; f = fail[f] {
				if to, ok := next[f][c]; ok && to != child {
					fail[child] = to
					break
				}
				if f == 0 {
					break
				}
			}
			out[child] = append(out[child], out[fail[child]]...)
			queue = append(queue, child)
		}
	}
	a := &automaton{nodes: make([]acNode, len(next)), lens: lens}
	for n, edges := range next {
		node := &a.nodes[n]
		node.fail = fail[n]
		node.edgeFrom, node.edgeCount = int32(len(a.edges)), int32(len(edges))
		for _, c := range slices.Sorted(maps.Keys(edges)) {
			a.edges = append(a.edges, acEdge{c, edges[c]})
		}
		node.outFrom, node.outCount = int32(len(a.outs)), int32(len(out[n]))
		a.outs = append(a.outs, out[n]...)
	}
	for c, to := range next[0] {
		a.root[c] = to
	}
	return a
}

// step follows n's edge for c: the node, or -1 when there is none.
func (a *automaton) step(n int32, c byte) int32 {
	if n == 0 {
		if to := a.root[c]; to != 0 {
			return to
		}
		return -1
	}
	node := a.nodes[n]
	for _, e := range a.edges[node.edgeFrom : node.edgeFrom+node.edgeCount] {
		if e.c == c {
			return e.to
		}
		if e.c > c {
			break
		}
	}
	return -1
}

// match is one occurrence of pattern id at text[start:end].
type match struct{ start, end, id int }

// find appends every occurrence of every pattern in text to into.
func (a *automaton) find(text []byte, into []match) []match {
	n := int32(0)
	for i, c := range text {
		for {
			if to := a.step(n, c); to >= 0 {
				n = to
				break
			}
			if n == 0 {
				break
			}
			n = a.nodes[n].fail
		}
		node := a.nodes[n]
		for _, id := range a.outs[node.outFrom : node.outFrom+node.outCount] {
			into = append(into, match{start: i + 1 - a.lens[id], end: i + 1, id: int(id)})
		}
	}
	return into
}

// leftmostLongest keeps, of overlapping matches, the one that starts
// first, and of those the longest: a form that holds another is
// replaced whole.
func leftmostLongest(ms []match) []match {
	slices.SortFunc(ms, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end), cmp.Compare(a.id, b.id))
	})
	kept := ms[:0]
	end := 0
	for _, m := range ms {
		if m.start >= end {
			kept = append(kept, m)
			end = m.end
		}
	}
	return kept
}
