package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rote-agent/rote/bench/stats"
	"github.com/rote-agent/rote/schema"
)

// pair is one repetition's cold and warm run.
type pair struct{ cold, warm *Result }

// TaskSummary is one task's metrics over its repetitions.
type TaskSummary struct {
	Pairs          int            `json:"pairs"`
	ColdSuccess    int            `json:"cold_success"`
	WarmSuccess    int            `json:"warm_success"`
	ColdTokens     float64        `json:"cold_tokens_mean"`
	WarmTokens     float64        `json:"warm_tokens_mean"`
	TokenReduction stats.Interval `json:"token_reduction"`
	// AdjustedReduction compares cache-adjusted tokens.
	AdjustedReduction stats.Interval `json:"adjusted_reduction"`
	ColdCalls         float64        `json:"cold_calls_mean"`
	WarmCalls         float64        `json:"warm_calls_mean"`
	ColdWallMS        float64        `json:"cold_wall_ms_mean"`
	WarmWallMS        float64        `json:"warm_wall_ms_mean"`
	Speedup           stats.Interval `json:"speedup"`
	FalseMatches      int            `json:"false_matches"`
	// Recovered counts warm runs under drift that succeeded without
	// falling back (as replayed, or with a scoped repair).
	Recovered int `json:"recovered_without_fallback"`
	Drifted   int `json:"drifted"`
	// RepairCost is a repair's tokens over its pair's cold tokens, mean
	// over the runs that repaired.
	RepairCost float64 `json:"repair_cost_share,omitempty"`
	// MissOverhead is the matcher's tokens on a miss over the cold run's,
	// mean over the misses.
	MissOverhead float64 `json:"miss_overhead_share"`
	Misses       int     `json:"misses"`
	// ObservationShare is the share of the cold runs' prompt tokens that
	// were page renders.
	ObservationShare float64 `json:"observation_share"`
	MustMiss         bool    `json:"must_miss,omitempty"`
}

// Summary is the bench's outcome: the gates and the per-task metrics.
type Summary struct {
	Gates map[string]stats.Gate  `json:"gates"`
	Tasks map[string]TaskSummary `json:"tasks"`
	Seed  uint64                 `json:"seed"`
	Reps  int                    `json:"reps"`
	Model string                 `json:"model"`
	Suite string                 `json:"suite"`
	// Gained counts the repetitions Rote warm completed and the cold
	// agent did not: success parity the other way.
	Gained int `json:"parity_gained"`
	// NearMisses are the near-miss tasks sent to the matcher.
	NearMisses []NearMiss `json:"near_misses,omitempty"`
	// Speed is what the latency gate's wall times are made of.
	Speed Speed `json:"speed"`
	// Classes are every run's steps by why they ran, per arm.
	Classes map[Arm][]schema.ClassUsage `json:"classes"`
	// Perception is the WordPress suite's perception table.
	Perception *Perception `json:"perception,omitempty"`
}

// Speed splits the latency comparison into the time spent waiting for
// the model and the rest, over the pairs the latency gate counts.
type Speed struct {
	ColdCalls   int     `json:"cold_calls"`
	WarmCalls   int     `json:"warm_calls"`
	ColdModelMS float64 `json:"cold_model_ms"`
	WarmModelMS float64 `json:"warm_model_ms"`
	ColdOtherMS float64 `json:"cold_other_ms"`
	WarmOtherMS float64 `json:"warm_other_ms"`
	// InstantRatio is cold/warm wall time as if the model answered at
	// once: what the browser, the site and Rote itself cost.
	InstantRatio float64 `json:"instant_ratio"`
	// BreakEvenCallMS is the mean model call time at which cold/warm
	// wall time reaches MinSpeedup (0 when it does at any call time).
	BreakEvenCallMS float64 `json:"break_even_call_ms"`
}

func speedOf(ps []pair) Speed {
	var s Speed
	for _, p := range ps {
		s.ColdCalls += p.cold.Calls
		s.WarmCalls += p.warm.Calls
		s.ColdModelMS += p.cold.ModelMS
		s.WarmModelMS += p.warm.ModelMS
		s.ColdOtherMS += p.cold.WallMS - p.cold.ModelMS
		s.WarmOtherMS += p.warm.WallMS - p.warm.ModelMS
	}
	if s.WarmOtherMS > 0 {
		s.InstantRatio = s.ColdOtherMS / s.WarmOtherMS
	}
	// (coldOther + coldCalls·L) / (warmOther + warmCalls·L) = k, for L.
	k := stats.MinSpeedup
	if d := float64(s.ColdCalls) - k*float64(s.WarmCalls); d > 0 {
		s.BreakEvenCallMS = max(0, (k*s.WarmOtherMS-s.ColdOtherMS)/d)
	}
	return s
}

// TaskNames are the summarized tasks in id order.
func (s *Summary) TaskNames() []string { return slices.Sorted(maps.Keys(s.Tasks)) }

// Pass reports whether every gate passed.
func (s *Summary) Pass() bool {
	for _, g := range s.Gates {
		if !g.Pass {
			return false
		}
	}
	return len(s.Gates) > 0
}

// GateNames are the gates in report order.
var GateNames = []string{"token_reduction", "success_parity", "wrong_outcomes", "false_matches", "latency"}

// Summarize pairs results by task, variant and repetition and computes
// every metric; mustMiss names the tasks whose warm runs must not match
// (they count for false matches, not for savings).
func Summarize(results []Result, mustMiss map[string]bool, seed uint64, reps int, model string) *Summary {
	byTask := map[string][]pair{}
	index := map[string]*pair{}
	for i := range results {
		r := &results[i]
		key := fmt.Sprintf("%s|%s|%d", r.Task, r.Variant, r.Rep)
		p := index[key]
		if p == nil {
			p = &pair{}
			index[key] = p
		}
		if r.Arm == Cold {
			p.cold = r
		} else {
			p.warm = r
		}
	}
	keys := make([]string, 0, len(index))
	for k := range index {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var saving []pair
	for _, k := range keys {
		p := index[k]
		if p.cold == nil || p.warm == nil {
			continue
		}
		byTask[p.cold.Task] = append(byTask[p.cold.Task], *p)
		if !mustMiss[p.cold.Task] {
			saving = append(saving, *p)
		}
	}
	s := &Summary{Tasks: map[string]TaskSummary{}, Seed: seed, Reps: reps, Model: model, Classes: map[Arm][]schema.ClassUsage{}}
	for _, r := range results {
		s.Classes[r.Arm] = schema.MergeClasses(s.Classes[r.Arm], r.Classes)
	}
	lost, falseMatches, wrong := 0, 0, 0
	for task, ps := range byTask {
		ts := summarizeTask(ps, seed)
		ts.MustMiss = mustMiss[task]
		s.Tasks[task] = ts
		falseMatches += ts.FalseMatches
		for _, p := range ps {
			switch {
			case p.cold.Success && !p.warm.Success:
				lost++
			case !p.cold.Success && p.warm.Success:
				s.Gained++
			}
			if p.warm.Verified && !p.warm.Success {
				wrong++
			}
		}
	}
	red := stats.Bootstrap(len(saving), seed, func(idx []int) float64 {
		return stats.Reduction(idx, side(saving, logical, Cold), side(saving, logical, Warm))
	})
	speed := stats.Bootstrap(len(saving), seed+1, func(idx []int) float64 { return stats.Ratio(idx, side(saving, wall, Cold), side(saving, wall, Warm)) })
	s.Speed = speedOf(saving)
	s.Gates = map[string]stats.Gate{
		"token_reduction": stats.AtLeast("token_reduction", red.Low, stats.MinTokenReduction,
			fmt.Sprintf("lower 95%% bound of 1 - warm/cold logical tokens over %d pairs (point %.4f, upper %.4f)", len(saving), red.Value, red.High)),
		"success_parity": stats.Exactly("success_parity", float64(lost), 0, fmt.Sprintf("repetitions the cold agent completed and Rote warm did not (the other way: %d)", s.Gained)),
		"wrong_outcomes": stats.Exactly("wrong_outcomes", float64(wrong), 0, "warm runs that passed their own verify gate while the site's state says the task was not done right"),
		"false_matches":  stats.Exactly("false_matches", float64(falseMatches), 0, "warm runs matched to a playbook of another task"),
		"latency": stats.AtLeast("latency", speed.Low, stats.MinSpeedup,
			fmt.Sprintf("lower 95%% bound of cold/warm wall time over %d pairs (point %.2f, upper %.2f)", len(saving), speed.Value, speed.High)),
	}
	return s
}

func summarizeTask(ps []pair, seed uint64) TaskSummary {
	ts := TaskSummary{Pairs: len(ps)}
	n := float64(len(ps))
	var repairs, repairShare, missShare, obs, prompt float64
	for _, p := range ps {
		c, w := p.cold, p.warm
		if c.Success {
			ts.ColdSuccess++
		}
		if w.Success {
			ts.WarmSuccess++
		}
		if w.FalseMatch {
			ts.FalseMatches++
		}
		ts.ColdTokens += float64(c.Logical) / n
		ts.WarmTokens += float64(w.Logical) / n
		ts.ColdCalls += float64(c.Calls) / n
		ts.WarmCalls += float64(w.Calls) / n
		ts.ColdWallMS += c.WallMS / n
		ts.WarmWallMS += w.WallMS / n
		if w.Variant != "" {
			ts.Drifted++
			if w.Success && w.Mode != "fallback" {
				ts.Recovered++
			}
		}
		for _, u := range w.Usage {
			switch {
			case u.Source == "repair" && c.Logical > 0:
				repairs++
				repairShare += float64(u.Tokens.Logical()) / float64(c.Logical)
			case u.Source == "matcher" && w.Playbook == "" && c.Logical > 0:
				missShare += float64(u.Tokens.Logical()) / float64(c.Logical)
			}
		}
		if w.Playbook == "" {
			ts.Misses++
		}
		obs += float64(c.ObservationTokens)
		for _, u := range c.Usage {
			prompt += float64(u.Tokens.Logical() - u.Tokens.Output)
		}
	}
	if repairs > 0 {
		ts.RepairCost = repairShare / repairs
	}
	if ts.Misses > 0 {
		ts.MissOverhead = missShare / float64(ts.Misses)
	}
	if prompt > 0 {
		ts.ObservationShare = obs / prompt
	}
	ts.TokenReduction = stats.Bootstrap(len(ps), seed, func(idx []int) float64 { return stats.Reduction(idx, side(ps, logical, Cold), side(ps, logical, Warm)) })
	ts.AdjustedReduction = stats.Bootstrap(len(ps), seed, func(idx []int) float64 {
		return stats.Reduction(idx, side(ps, adjusted, Cold), side(ps, adjusted, Warm))
	})
	ts.Speedup = stats.Bootstrap(len(ps), seed+1, func(idx []int) float64 { return stats.Ratio(idx, side(ps, wall, Cold), side(ps, wall, Warm)) })
	return ts
}

func logical(r *Result) float64  { return float64(r.Logical) }
func adjusted(r *Result) float64 { return r.Adjusted }
func wall(r *Result) float64     { return r.WallMS }

// side reads f of the arm's run of pair i.
func side(ps []pair, f func(*Result) float64, arm Arm) func(int) float64 {
	return func(i int) float64 {
		if arm == Cold {
			return f(ps[i].cold)
		}
		return f(ps[i].warm)
	}
}
