package main

import (
	"math"
	"testing"
)

func TestFitLine(t *testing.T) {
	// y = 2 + 0.065·x exactly: GitHub-like CPU seconds per operation.
	xs := []float64{100, 200, 400, 767}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 2 + 0.065*x
	}
	l, err := fitLine(xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.slope, 0.065) || !near(l.intercept, 2) || !near(l.r2, 1) {
		t.Errorf("fitLine of an exact line = %+v, want slope 0.065, intercept 2, R² 1", l)
	}

	// Noisy points: the least-squares answer computed by hand.
	l, err = fitLine([]float64{1, 2, 3, 4}, []float64{2, 3, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	// mean x 2.5, mean y 4; sxy = 1.5·2+0.5·1+0.5·1+1.5·2 = 7, sxx = 5, syy = 10.
	if !near(l.slope, 1.4) || !near(l.intercept, 0.5) || !near(l.r2, 49.0/50) {
		t.Errorf("fitLine = %+v, want slope 1.4, intercept 0.5, R² 0.98", l)
	}

	// A flat line fits perfectly.
	if l, err := fitLine([]float64{1, 2}, []float64{3, 3}); err != nil || l.slope != 0 || l.intercept != 3 || l.r2 != 1 {
		t.Errorf("fitLine of a flat line = %+v, %v", l, err)
	}

	for name, tc := range map[string][2][]float64{
		"one point":      {{1}, {2}},
		"no points":      {nil, nil},
		"same xs":        {{3, 3, 3}, {1, 2, 3}},
		"lengths differ": {{1, 2}, {1}},
		"not finite":     {{1, math.Inf(1)}, {1, 2}},
	} {
		if l, err := fitLine(tc[0], tc[1]); err == nil {
			t.Errorf("fitLine, %s: %+v, no error", name, l)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
