package breaker

import (
	"testing"
)

func TestConsecutiveOpensThenProbeCloses(t *testing.T) {
	b := New(Config{Consecutive: 3, Window: 1000, CoolDown: 100, Probes: 1})
	now := int64(0)
	for i := range 3 {
		tk, ok, _, _ := b.Allow(now)
		if !ok {
			t.Fatalf("attempt %d refused while closed", i)
		}
		c := b.Done(now, tk, Failure)
		if want := i == 2; c.Changed() != want {
			t.Fatalf("attempt %d: change %+v", i, c)
		}
	}
	if _, ok, until, _ := b.Allow(now + 50); ok || until != 100 {
		t.Fatalf("open circuit let a request through (until %d)", until)
	}
	tk, ok, _, c := b.Allow(now + 100)
	if !ok || c.To != HalfOpen {
		t.Fatalf("after the cool-down: ok %v, change %+v", ok, c)
	}
	if _, ok, _, _ := b.Allow(now + 100); ok {
		t.Fatal("a second probe went through half-open")
	}
	if c := b.Done(now+101, tk, Success); c.To != Closed {
		t.Fatalf("a successful probe left the circuit %v", c.To)
	}
}

func TestRatioNeedsMinRequests(t *testing.T) {
	b := New(Config{Ratio: 0.5, MinRequests: 4, Window: 1000, CoolDown: 100})
	outcomes := []Outcome{Failure, Success, Failure}
	for _, o := range outcomes {
		tk, _, _, _ := b.Allow(0)
		b.Done(0, tk, o)
	}
	if s := b.State(0); s != Closed {
		t.Fatalf("3 outcomes under MinRequests 4 tripped it: %v", s)
	}
	tk, _, _, _ := b.Allow(0)
	if c := b.Done(0, tk, Success); c.To != Closed {
		t.Fatalf("2 of 4 failures at ratio 0.5 should trip only on a failure, got %v", c.To)
	}
	tk, _, _, _ = b.Allow(0)
	if c := b.Done(0, tk, Failure); c.To != Open {
		t.Fatalf("3 of 5 failures at ratio 0.5 left it %v", c.To)
	}
}

func TestWindowForgets(t *testing.T) {
	b := New(Config{Ratio: 0.5, MinRequests: 2, Window: 1000, CoolDown: 100})
	tk, _, _, _ := b.Allow(0)
	b.Done(0, tk, Failure)
	tk, _, _, _ = b.Allow(2000) // the first failure is out of the window
	if c := b.Done(2000, tk, Failure); c.To != Closed {
		t.Fatalf("a failure out of the window counted: %v", c.To)
	}
	if _, f, _ := b.Counts(2000); f != 1 {
		t.Fatalf("failures in the window: %d, want 1", f)
	}
}

func TestFailedProbeReopens(t *testing.T) {
	b := New(Config{Consecutive: 1, Window: 1000, CoolDown: 100, Probes: 2})
	tk, _, _, _ := b.Allow(0)
	b.Done(0, tk, Failure)
	p1, ok1, _, _ := b.Allow(100)
	p2, ok2, _, _ := b.Allow(100)
	if !ok1 || !ok2 {
		t.Fatal("two probes should go through")
	}
	b.Done(101, p1, Ignored) // a probe the caller gave up: its slot is free again
	if out, passed := b.Probes(); out != 1 || passed != 0 {
		t.Fatalf("probes out %d passed %d", out, passed)
	}
	if c := b.Done(102, p2, Failure); c.To != Open || c.Until != 202 {
		t.Fatalf("a failed probe: %+v", c)
	}
}

func TestTripFromStore(t *testing.T) {
	b := New(Config{Consecutive: 5, Window: 1000, CoolDown: 100})
	if c := b.Trip(500); c.To != Open || c.Until != 500 {
		t.Fatalf("Trip: %+v", c)
	}
	if c := b.Trip(300); c.Until != 500 {
		t.Fatalf("an earlier trip shortened the open state: %+v", c)
	}
	if _, ok, _, _ := b.Allow(499); ok {
		t.Fatal("tripped circuit let a request through")
	}
}

// FuzzBreaker drives a breaker with a sequence of steps, each byte one
// action (allow, an outcome of a ticket out, a time step, a trip), and
// checks its invariants after each.
func FuzzBreaker(f *testing.F) {
	f.Add(uint8(3), uint8(50), uint8(4), uint8(1), []byte{0, 1, 0, 1, 0, 1, 5, 0, 2})
	f.Add(uint8(0), uint8(30), uint8(2), uint8(2), []byte{0, 0, 1, 2, 5, 5, 5, 0, 0, 3, 2, 6})
	f.Add(uint8(1), uint8(0), uint8(1), uint8(3), []byte{0, 1, 7, 0, 0, 0, 3, 3, 3})
	f.Fuzz(func(t *testing.T, consecutive, ratio, minReq, probes uint8, steps []byte) {
		cfg := Config{
			Consecutive: int(consecutive % 8),
			Ratio:       float64(ratio%101) / 100,
			MinRequests: int(minReq % 16),
			Window:      1000,
			CoolDown:    300,
			Probes:      int(probes%4) + 1,
		}
		b := New(cfg)
		now := int64(0)
		var out []Ticket
		for _, s := range steps {
			before := b.State(now)
			beforeUntil := b.until
			switch s % 8 {
			case 0: // a request asks
				tk, ok, until, c := b.Allow(now)
				if c.From == Open && c.To == Closed || c.From == Closed && c.To != Closed || c.From == HalfOpen && c.To != HalfOpen {
					t.Fatalf("Allow moved %v to %v", c.From, c.To)
				}
				if ok {
					out = append(out, tk)
				} else if until < now && b.state == Open {
					t.Fatalf("refused until %d, before now %d", until, now)
				}
				if !ok && before == Closed {
					t.Fatal("a closed circuit refused a request")
				}
			case 1, 2, 3: // the oldest request out ends
				if len(out) == 0 {
					continue
				}
				tk := out[0]
				out = out[1:]
				o := Outcome(s%8 - 1)
				c := b.Done(now, tk, o)
				if c.Changed() {
					switch {
					case c.From == Closed && c.To == Open && o == Failure && !tk.probe:
					case c.From == HalfOpen && c.To == Open && o == Failure && tk.probe:
					case c.From == HalfOpen && c.To == Closed && o == Success && tk.probe:
					default:
						t.Fatalf("Done(%v, probe %v) moved %v to %v", o, tk.probe, c.From, c.To)
					}
				}
				if c.To == Open && c.Changed() && c.Until != now+cfg.CoolDown {
					t.Fatalf("opened until %d at %d, cool-down %d", c.Until, now, cfg.CoolDown)
				}
			case 4: // time passes a little
				now += 7
			case 5: // time passes a lot
				now += 211
			case 6: // another process trips it
				c := b.Trip(now + 150)
				if c.To != Open || c.Until < now+150 {
					t.Fatalf("Trip left %+v", c)
				}
			case 7:
				now += 1001
			}
			if b.state > HalfOpen {
				t.Fatalf("invalid state %d", b.state)
			}
			if b.probes < 0 || b.probes > cfg.Probes || b.passed < 0 || b.probes+b.passed > cfg.Probes {
				t.Fatalf("probes out %d passed %d of %d", b.probes, b.passed, cfg.Probes)
			}
			if b.state != HalfOpen && (b.probes != 0 || b.passed != 0) {
				t.Fatalf("probes counted while %v", b.state)
			}
			if b.state == Closed && cfg.Consecutive > 0 && b.consecutive >= cfg.Consecutive {
				t.Fatalf("closed with %d failures in a row (threshold %d)", b.consecutive, cfg.Consecutive)
			}
			if b.state == Open && before == Open && b.until < beforeUntil {
				t.Fatalf("open state shortened from %d to %d", beforeUntil, b.until)
			}
			ok, failures, _ := b.Counts(now)
			if ok < 0 || failures < 0 {
				t.Fatalf("negative counts %d %d", ok, failures)
			}
			if b.state == Closed && cfg.Ratio > 0 && ok+failures >= b.cfg.MinRequests && failures > 0 &&
				float64(failures) >= cfg.Ratio*float64(ok+failures) && s%8 >= 1 && s%8 <= 3 && Outcome(s%8-1) == Failure {
				t.Fatalf("closed after a failure with %d of %d failing (ratio %v)", failures, ok+failures, cfg.Ratio)
			}
		}
	})
}
