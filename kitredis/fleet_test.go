package kitredis_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
	"github.com/redis/go-redis/v9"
)

// The fleet tests run real processes: the test binary re-executes itself,
// and TestMain hands a process whose workerEnv is set to runWorker, which
// plays the role it names against the parent's loopback server (fleetURL)
// and the test Redis, each worker with its own kit client. Workers talk to
// the parent with lines on stdout ("ready", "holding", "ok ...") and
// stdin ("go").
const (
	workerEnv = "KITREDIS_FLEET_WORKER" // the role
	urlEnv    = "KITREDIS_FLEET_URL"    // the parent's server
	keyEnv    = "KITREDIS_FLEET_KEY"    // the Redis key (prefix) of the test
	lockEnv   = "KITREDIS_FLEET_LOCK"   // the token store's lock expiry
)

// The quota of the quota test: 40 a second, bursts of 4.
var fleetLimit = kitredis.Limit{Rate: 40, Period: time.Second, Burst: 4}

const quotaRun = 2 * time.Second

var (
	fleetDoc    = kit.Get[kit.NoParams, *kit.Response]("/doc")
	fleetQuota  = kit.Get[kit.NoParams, *kit.Response]("/quota")
	fleetCached = kit.Get[kit.NoParams, *kit.Response]("/cached")
)

// runWorker plays the role in workerEnv; its result is the exit status.
func runWorker() int {
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(addrEnv), ContextTimeoutEnabled: true})
	defer rdb.Close()
	base, key := os.Getenv(urlEnv), os.Getenv(keyEnv)
	ctx := context.Background()
	fail := func(err error) int { fmt.Println("error:", err); return 1 }
	switch os.Getenv(workerEnv) {
	case "quota":
		c, err := kit.NewClient(base, kit.WithLimiter(kitredis.NewLimiter(rdb, key, fleetLimit)))
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		end := time.Now().Add(quotaRun)
		var wg sync.WaitGroup
		var bad atomic.Value
		for range 2 {
			wg.Go(func() {
				for time.Now().Before(end) {
					cctx, cancel := context.WithDeadline(ctx, end)
					_, err := fleetQuota.Call(cctx, c, kit.NoParams{})
					cancel()
					if err != nil && time.Now().Before(end) && ctx.Err() == nil && !strings.Contains(err.Error(), "deadline") {
						bad.Store(err)
					}
				}
			})
		}
		wg.Wait()
		if err, _ := bad.Load().(error); err != nil {
			return fail(err)
		}
		fmt.Println("ok")
	case "storm", "single":
		c, err := kit.NewClient(base, kit.WithAuth(kit.RenewingTokenAuth(renewOver(base),
			kit.WithTokenStore(kitredis.NewTokenStore(rdb, key, kitredis.WithLockExpiry(lockExpiry()))))))
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		cctx, cancel := context.WithTimeout(ctx, 3*lockExpiry()+5*time.Second)
		defer cancel()
		if _, err := fleetDoc.Call(cctx, c, kit.NoParams{}); err != nil {
			return fail(err)
		}
		if os.Getenv(workerEnv) == "single" {
			fmt.Println("ok")
			return 0
		}
		fmt.Println("ready")
		if line, _ := bufio.NewReader(os.Stdin).ReadString('\n'); strings.TrimSpace(line) != "go" {
			return fail(fmt.Errorf("parent said %q", line))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() {
				_, err := fleetDoc.Call(cctx, c, kit.NoParams{})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return fail(err)
			}
		}
		fmt.Println("ok")
	case "hold":
		renew := func(ctx context.Context, _ kit.Token) (kit.Token, error) {
			fmt.Println("holding")
			select {} // until the parent kills this process
		}
		c, err := kit.NewClient(base, kit.WithAuth(kit.RenewingTokenAuth(renew,
			kit.WithTokenStore(kitredis.NewTokenStore(rdb, key, kitredis.WithLockExpiry(lockExpiry()))))))
		if err != nil {
			return fail(err)
		}
		fleetDoc.Call(ctx, c, kit.NoParams{})
		return fail(fmt.Errorf("the holder was not killed"))
	case "cache":
		c, err := kit.NewClient(base, kit.WithCache(kitredis.NewCache(rdb, key)))
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		r, err := fleetCached.Call(ctx, c, kit.NoParams{})
		if err != nil {
			return fail(err)
		}
		fmt.Printf("ok fromcache=%v body=%s\n", r.FromCache(), r.Bytes())
	default:
		return fail(fmt.Errorf("unknown role %q", os.Getenv(workerEnv)))
	}
	return 0
}

func lockExpiry() time.Duration {
	ms, err := strconv.Atoi(os.Getenv(lockEnv))
	if err != nil {
		return kitredis.DefaultLockExpiry
	}
	return time.Duration(ms) * time.Millisecond
}

// renewOver is a refresh-token grant against the parent's /token.
func renewOver(base string) func(ctx context.Context, current kit.Token) (kit.Token, error) {
	return func(ctx context.Context, current kit.Token) (kit.Token, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/token", strings.NewReader(url.Values{"refresh_token": {current.Refresh}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return kit.Token{}, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			return kit.Token{}, fmt.Errorf("token endpoint: %d %s", resp.StatusCode, b)
		}
		var body struct{ Access, Refresh string }
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return kit.Token{}, err
		}
		return kit.Token{Value: body.Access, Refresh: body.Refresh, Expiry: time.Now().Add(time.Hour)}, nil
	}
}

// fleetServer is the parent's loopback server: a quota endpoint that
// records when each request arrives, a rotating token endpoint that counts
// renewals and refresh tokens used twice, a document that takes only the
// latest token, and a cacheable document that counts requests.
type fleetServer struct {
	mu       sync.Mutex
	arrivals []time.Time
	n        int
	access   string
	refresh  string
	renewals int
	reused   int
	cached   atomic.Int64
}

func (s *fleetServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/quota":
		s.arrivals = append(s.arrivals, time.Now())
		fmt.Fprint(w, `{}`)
	case "/token":
		r.ParseForm()
		s.renewals++
		if s.n > 0 && r.PostForm.Get("refresh_token") != s.refresh {
			s.reused++
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		s.n++
		s.access, s.refresh = fmt.Sprintf("access-%d", s.n), fmt.Sprintf("refresh-%d", s.n)
		json.NewEncoder(w).Encode(map[string]string{"access": s.access, "refresh": s.refresh})
	case "/doc":
		if s.access == "" || r.Header.Get("Authorization") != "Bearer "+s.access {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{}`)
	case "/cached":
		s.cached.Add(1)
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{"from":"the server"}`)
	default:
		http.NotFound(w, r)
	}
}

// worker is a running worker process.
type worker struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // its stdout, line by line; closed at its end
	done  chan error  // its exit
}

func startWorker(t *testing.T, role, base, key string, env ...string) *worker {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+role, urlEnv+"="+base, keyEnv+"="+key)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, in: in, lines: make(chan string, 16), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
		w.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		for range w.lines {
		}
	})
	return w
}

// expect waits for the worker's next line and checks its start.
func (w *worker) expect(t *testing.T, prefix string) string {
	t.Helper()
	line, ok := <-w.lines
	if !ok || !strings.HasPrefix(line, prefix) {
		t.Fatalf("worker %d: got %q (open %v), want %q", w.cmd.Process.Pid, line, ok, prefix)
	}
	return line
}

// wait waits for the worker's exit, which must be a success.
func (w *worker) wait(t *testing.T) {
	t.Helper()
	for range w.lines {
	}
	if err := <-w.done; err != nil {
		t.Errorf("worker %d: %v", w.cmd.Process.Pid, err)
	}
}

func fleetSetup(t *testing.T) (*fleetServer, string, string) {
	t.Helper()
	newRedis(t) // skips without Redis
	if testing.Short() {
		t.Skip("kitredis: fleet tests start processes; skipped with -short")
	}
	s := &fleetServer{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL, uniqueKey(t)
}

// (a) Four processes, each with two goroutines calling as fast as the
// shared limiter lets them, for two seconds: over every window of one
// period the server counts at most Burst + Rate requests, plus a
// tolerance: the limiter admits a request on Redis's clock, the server
// counts it when it arrives, and the time between the two (the process
// being scheduled, loopback, a loaded CI machine) varies. A window at the
// server can therefore hold requests admitted over Period + jitter; the
// test allows jitter = 250 ms, that is Rate/4 = 10 more requests.
func TestFleetQuota(t *testing.T) {
	s, base, key := fleetSetup(t)
	const jitter = 250 * time.Millisecond
	workers := make([]*worker, 4)
	for i := range workers {
		workers[i] = startWorker(t, "quota", base, key)
	}
	for _, w := range workers {
		w.expect(t, "ok")
		w.wait(t)
	}
	s.mu.Lock()
	arrivals := slices.Clone(s.arrivals)
	s.mu.Unlock()
	slices.SortFunc(arrivals, func(a, b time.Time) int { return a.Compare(b) })
	limit := fleetLimit.Burst + int(float64(fleetLimit.Rate)*(1+jitter.Seconds())+0.999)
	worst, j := 0, 0
	for i := range arrivals {
		for j < len(arrivals) && arrivals[j].Sub(arrivals[i]) < fleetLimit.Period {
			j++
		}
		worst = max(worst, j-i)
	}
	t.Logf("%d requests in all; at most %d in one period (allowed %d: burst %d + rate %d + %v of jitter)",
		len(arrivals), worst, limit, fleetLimit.Burst, fleetLimit.Rate, jitter)
	if worst > limit {
		t.Errorf("%d requests in one period, more than %d", worst, limit)
	}
	if len(arrivals) <= fleetLimit.Burst {
		t.Errorf("only %d requests went through", len(arrivals))
	}
}

// (b) Eight processes share a token; the server revokes it and each sends
// four calls at once: one renewal, every call succeeds, no refresh token
// used twice.
func TestFleet401Storm(t *testing.T) {
	s, base, key := fleetSetup(t)
	workers := make([]*worker, 8)
	for i := range workers {
		workers[i] = startWorker(t, "storm", base, key)
	}
	for _, w := range workers {
		w.expect(t, "ready")
	}
	s.mu.Lock()
	first := s.renewals
	s.access = "revoked"
	s.mu.Unlock()
	for _, w := range workers {
		fmt.Fprintln(w.in, "go")
	}
	for _, w := range workers {
		w.expect(t, "ok")
		w.wait(t)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if first != 1 || s.renewals != 2 || s.reused != 0 {
		t.Errorf("renewals: %d for the first token, %d in all (want 1 and 2); %d refresh tokens reused", first, s.renewals, s.reused)
	}
}

// (c) A worker is SIGKILLed while it holds the renewal lock: the next one
// renews once the lock expires, within its deadline of three expiries.
func TestFleetHolderKilled(t *testing.T) {
	s, base, key := fleetSetup(t)
	lock := lockEnv + "=1500"
	holder := startWorker(t, "hold", base, key, lock)
	holder.expect(t, "holding")
	if err := holder.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	next := startWorker(t, "single", base, key, lock)
	next.expect(t, "ok")
	next.wait(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.renewals != 1 {
		t.Errorf("%d renewals at the token endpoint, want 1 (the holder's never reached it)", s.renewals)
	}
}

// (d) A response cached by one process is served to another.
func TestFleetSharedCache(t *testing.T) {
	s, base, key := fleetSetup(t)
	for i, want := range []string{"fromcache=false", "fromcache=true"} {
		w := startWorker(t, "cache", base, key)
		line := w.expect(t, "ok")
		w.wait(t)
		if !strings.Contains(line, want) || !strings.Contains(line, "the server") {
			t.Errorf("worker %d: %q, want %s", i, line, want)
		}
	}
	if n := s.cached.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}
