package sandbox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// kubeProxy sits between clients and the kube-apiserver, so that tests can
// cut long-running watch connections and count requests. It serves TLS
// with the sandbox certificate and forwards every request unchanged,
// Authorization header included.
type kubeProxy struct {
	server   *http.Server
	listener net.Listener
	URL      string

	mu      sync.Mutex
	watches map[uint64]context.CancelFunc
	nextID  uint64

	requests atomic.Int64
	cuts     atomic.Int64
	// deny, when set, is the status to answer a request for a resource
	// with instead of forwarding it (0: forward; kubeHold: never answer).
	// See Faults.KubeDeny and Faults.KubeNoAnswer.
	deny atomic.Pointer[func(resource string) int]
	// counts maps "verb resource" (see kubeRequestKey) to a counter.
	counts sync.Map
}

func newKubeProxy(upstream string, caPEM []byte, certFile, keyFile string) (*kubeProxy, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
	}
	rp.FlushInterval = -1 // stream watch events as they come
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() != nil {
			return // cut on purpose, or the client went away
		}
		http.Error(w, "sandbox proxy: "+err.Error(), http.StatusBadGateway)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &kubeProxy{listener: l, URL: "https://" + l.Addr().String(), watches: map[uint64]context.CancelFunc{}}
	p.server = &http.Server{
		Handler:   p.handler(rp),
		ErrorLog:  log.New(io.Discard, "", 0), // clients without the CA are expected in tests
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	}
	go func() { _ = p.server.ServeTLS(l, "", "") }()
	return p, nil
}

func (p *kubeProxy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		key := kubeRequestKey(r)
		c, _ := p.counts.LoadOrStore(key, new(atomic.Int64))
		if counter, ok := c.(*atomic.Int64); ok {
			counter.Add(1)
		}
		if _, resource, _ := strings.Cut(key, " "); p.deny.Load() != nil {
			switch code := (*p.deny.Load())(strings.Split(resource, "/")[0]); code {
			case 0:
			case kubeHold:
				holdUnanswered(r)
				return
			case kubeBadGateway:
				http.Error(w, "sandbox proxy: dial tcp: connect: connection refused (kubeDown fault)", http.StatusBadGateway)
				return
			case kubeReset:
				panic(http.ErrAbortHandler) // resets the HTTP/2 stream, or closes the connection
			default:
				writeKubeStatus(w, code, resource)
				return
			}
		}
		if r.URL.Query().Get("watch") != "true" && r.URL.Query().Get("watch") != "1" {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		p.mu.Lock()
		p.nextID++
		id := p.nextID
		p.watches[id] = cancel
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.watches, id)
			p.mu.Unlock()
			cancel()
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// CutWatches ends every open watch connection, as a load balancer or a
// restarting API server would, and returns how many it cut.
func (p *kubeProxy) CutWatches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, cancel := range p.watches {
		cancel()
		delete(p.watches, id)
		n++
	}
	p.cuts.Add(int64(n))
	return n
}

// OpenWatches is the number of watch connections open now.
func (p *kubeProxy) OpenWatches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.watches)
}

// kubeRequestKey names a Kubernetes API request as "verb resource", with
// the verbs of the API server's audit log (get, list, watch, create,
// update, patch, delete, deletecollection) and the resource with its
// subresource ("nodes", "slices/status"). A LIST that continues a paged
// list is "list-page"; a streaming list (a watch with sendInitialEvents,
// which client-go informers use to list) is "watchlist". Requests outside
// the resource API are "GET /path".
func kubeRequestKey(r *http.Request) string {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:]
	}
	if len(rest) == 0 {
		return r.Method + " /" + strings.Join(parts, "/")
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:] // a namespaced resource
	}
	resource, named := rest[0], len(rest) >= 2
	if len(rest) >= 3 {
		resource += "/" + rest[2]
	}
	q := r.URL.Query()
	var verb string
	switch r.Method {
	case http.MethodGet:
		switch {
		case (q.Get("watch") == "true" || q.Get("watch") == "1") && q.Get("sendInitialEvents") == "true":
			verb = "watchlist"
		case q.Get("watch") == "true" || q.Get("watch") == "1":
			verb = "watch"
		case named:
			verb = "get"
		case q.Get("continue") != "":
			verb = "list-page"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if !named {
			verb = "deletecollection"
		}
	default:
		verb = strings.ToLower(r.Method)
	}
	return verb + " " + resource
}

// writeKubeStatus answers as the API server does when it refuses a
// request: a metav1.Status with the code's reason.
func writeKubeStatus(w http.ResponseWriter, code int, resource string) {
	reason, message := "Forbidden", fmt.Sprintf("%s is forbidden: User \"sandbox\" cannot access resource %q (sandbox fault)", resource, resource)
	switch code {
	case http.StatusNotFound:
		reason, message = "NotFound", "the server could not find the requested resource (sandbox fault)"
	case http.StatusUnauthorized:
		reason, message = "Unauthorized", "Unauthorized (sandbox fault)"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code,
	})
}

func (p *kubeProxy) countsByKey() map[string]int64 {
	out := map[string]int64{}
	p.counts.Range(func(k, v any) bool {
		key, _ := k.(string)
		if counter, ok := v.(*atomic.Int64); ok {
			out[key] = counter.Load()
		}
		return true
	})
	return out
}

func (p *kubeProxy) close() {
	_ = p.server.Close()
}
