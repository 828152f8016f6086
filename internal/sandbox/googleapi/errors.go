// Package googleapi is what the sandbox's emulated Google APIs (Compute
// Engine, GKE) share: the error shape every Google REST API answers with,
// request bodies read as Google's front end reads them (body.go), the log
// of ignored fields and refused requests, and the HTTP plumbing in front of
// the APIs' routes.
package googleapi

import (
	"encoding/json"
	"net/http"
)

// WriteJSON answers with a JSON document.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError answers in the error shape every Google REST API uses, which
// the Go clients turn into *googleapi.Error / apierror.APIError.
func WriteError(w http.ResponseWriter, code int, status, message, reason string) {
	WriteJSON(w, code, map[string]any{"error": map[string]any{
		"code":    code,
		"message": message,
		"status":  status,
		"errors":  []map[string]string{{"message": message, "domain": "global", "reason": reason}},
	}})
}

// NotFound answers 404 NOT_FOUND for the resource what.
func NotFound(w http.ResponseWriter, what string) {
	WriteError(w, http.StatusNotFound, "NOT_FOUND", "The resource '"+what+"' was not found", "notFound")
}

// BadRequest answers 400 INVALID_ARGUMENT.
func BadRequest(w http.ResponseWriter, message string) {
	WriteError(w, http.StatusBadRequest, "INVALID_ARGUMENT", message, "invalid")
}

// Conflict answers 409 ALREADY_EXISTS.
func Conflict(w http.ResponseWriter, message string) {
	WriteError(w, http.StatusConflict, "ALREADY_EXISTS", message, "alreadyExists")
}
