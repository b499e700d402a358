package main

import (
	"errors"
	"math"
)

// line is a least-squares fit y = intercept + slope·x.
type line struct {
	intercept, slope float64
	r2               float64 // the coefficient of determination; 1 for a perfect fit
}

// fitLine fits a line through the points (xs[i], ys[i]) by least squares.
// It needs two points or more with distinct xs.
func fitLine(xs, ys []float64) (line, error) {
	if len(xs) != len(ys) {
		return line{}, errors.New("fitting a line: as many xs as ys are needed")
	}
	n := float64(len(xs))
	if len(xs) < 2 {
		return line{}, errors.New("fitting a line: two points or more are needed")
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return line{}, errors.New("fitting a line: the xs are all the same")
	}
	l := line{slope: sxy / sxx}
	l.intercept = my - l.slope*mx
	l.r2 = 1
	if syy > 0 {
		l.r2 = sxy * sxy / (sxx * syy)
	}
	if math.IsNaN(l.slope) || math.IsInf(l.slope, 0) {
		return line{}, errors.New("fitting a line: the points are not finite")
	}
	return l, nil
}
