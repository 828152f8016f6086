package cloud

import "sync"

// HeldOperations are the operations an API's HoldOperations fault holds:
// every answer that shows one says RUNNING, for as long as the world
// lives or until it is released (HoldOperationsMs). Its zero value holds
// none.
type HeldOperations struct {
	mu   sync.Mutex
	held map[string]bool
}

// Hold holds the api's operation name.
func (h *HeldOperations) Hold(api, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[string]bool{}
	}
	h.held[api+" "+name] = true
}

// Release ends the hold of the api's operation name.
func (h *HeldOperations) Release(api, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, api+" "+name)
}

// Held says whether the api's operation name is held.
func (h *HeldOperations) Held(api, name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[api+" "+name]
}

// Any says whether the api holds any operation.
func (h *HeldOperations) Any(api string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k := range h.held {
		if len(k) > len(api) && k[:len(api)+1] == api+" " {
			return true
		}
	}
	return false
}

// TakeHold says whether an operation the api starts now is to be held,
// counting it against the API's HoldOperations fault. Call it under the
// world's lock.
func (a *APIFaults) TakeHold() bool {
	if a.HoldOperations <= 0 {
		return false
	}
	a.HoldOperations--
	return true
}
