package report

import (
	"fmt"
	"path/filepath"

	"github.com/rote-agent/rote/bench/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot draws the report's two plots into dir, each as SVG and PNG:
// tokens-per-task (mean logical tokens, cold beside warm, with bootstrap
// 95% intervals of the mean) and cumulative-tokens (mean logical tokens
// after each model call, cold solid and warm dashed, per task).
func Plot(dir string, results []Result, s *Summary) error {
	tasks := s.TaskNames()
	perTask, err := tokensPerTask(results, tasks, s.Seed)
	if err != nil {
		return err
	}
	cumulative, err := cumulativeTokens(results, tasks, s)
	if err != nil {
		return err
	}
	for name, p := range map[string]*plot.Plot{"tokens-per-task": perTask, "cumulative-tokens": cumulative} {
		for _, ext := range []string{".svg", ".png"} {
			if err := p.Save(9*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, name+ext)); err != nil {
				return fmt.Errorf("plot %s%s: %w", name, ext, err)
			}
		}
	}
	return nil
}

// armTokens are the logical tokens of task's runs on arm, by repetition.
func armTokens(results []Result, task string, arm Arm) []float64 {
	var out []float64
	for _, r := range results {
		if r.Task == task && r.Arm == arm {
			out = append(out, float64(r.Logical))
		}
	}
	return out
}

// meanInterval is the mean of xs with its bootstrap 95% interval.
func meanInterval(xs []float64, seed uint64) stats.Interval {
	return stats.Bootstrap(len(xs), seed, func(idx []int) float64 {
		sum := 0.0
		for _, i := range idx {
			sum += xs[i]
		}
		return sum / float64(len(idx))
	})
}

func tokensPerTask(results []Result, tasks []string, seed uint64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Logical tokens per task: cold agent vs Rote warm (mean, 95% CI)"
	p.Y.Label.Text = "tokens per run"
	p.Y.Min = 0
	width := vg.Points(22)
	for i, arm := range []Arm{Cold, Warm} {
		shift := 0.16 * float64(2*i-1) // cold left of the task's tick, warm right
		var means plotter.Values
		var xys plotter.XYs
		var errs plotter.YErrors
		for j, task := range tasks {
			ci := meanInterval(armTokens(results, task, arm), seed)
			means = append(means, ci.Value)
			xys = append(xys, plotter.XY{X: float64(j) + shift, Y: ci.Value})
			errs = append(errs, struct{ Low, High float64 }{ci.Value - ci.Low, ci.High - ci.Value})
		}
		bars, err := plotter.NewBarChart(means, width)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.XMin = shift
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		p.Add(bars, eb)
		p.Legend.Add(string(arm), bars)
	}
	p.Legend.Top, p.Legend.Left = true, true // over the first task's short bars, not the last's
	p.NominalX(tasks...)
	p.X.Min, p.X.Max = -0.6, float64(len(tasks))-0.4
	return p, nil
}

// meanCumulative is the mean, over runs, of the cumulative tokens after
// call k; a run with fewer calls keeps its total.
func meanCumulative(runs [][]int64) plotter.XYs {
	longest := 0
	for _, r := range runs {
		longest = max(longest, len(r))
	}
	xys := plotter.XYs{{X: 0, Y: 0}}
	for k := range longest {
		sum := 0.0
		for _, r := range runs {
			switch {
			case k < len(r):
				sum += float64(r[k])
			case len(r) > 0:
				sum += float64(r[len(r)-1])
			}
		}
		xys = append(xys, plotter.XY{X: float64(k + 1), Y: sum / float64(len(runs))})
	}
	return xys
}

func cumulativeTokens(results []Result, tasks []string, s *Summary) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Cumulative logical tokens over model calls (mean over repetitions)"
	p.X.Label.Text = "model call"
	p.Y.Label.Text = "tokens so far"
	color := 0
	for _, task := range tasks {
		if s.Tasks[task].MustMiss {
			continue
		}
		for _, arm := range []Arm{Cold, Warm} {
			var runs [][]int64
			for _, r := range results {
				if r.Task == task && r.Arm == arm {
					runs = append(runs, r.CumulativeTokens)
				}
			}
			if len(runs) == 0 {
				continue
			}
			l, pts, err := plotter.NewLinePoints(meanCumulative(runs))
			if err != nil {
				return nil, err
			}
			l.Color, pts.Color = plotutil.Color(color), plotutil.Color(color)
			pts.Radius = vg.Points(1.5)
			if arm == Warm {
				l.Dashes = plotutil.Dashes(2)
			}
			p.Add(l, pts)
			p.Legend.Add(task+" "+string(arm), l)
		}
		color++
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}
