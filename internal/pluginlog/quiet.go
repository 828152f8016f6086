// Package pluginlog keeps a provider from writing logs that nobody reads.
//
// A provider built on terraform-plugin-go writes every log line of the
// plugin SDKs at TRACE, as JSON on its stderr, unless an environment
// variable sets their level; Terraform reads each line back and drops it
// when its own logging is off (TF_LOG and TF_LOG_PROVIDER unset). The
// framework writes several lines per attribute of each request: a plan of
// a full pod's stack wrote some 60,000 lines that Terraform then dropped,
// about a third of the plan's CPU time. Quiet turns them off at the
// source, and only then.
package pluginlog

import (
	"log"
	"os"
	"strings"
)

// terraformLevels are Terraform's own switches for showing provider logs:
// when both are unset or off, Terraform drops every line a provider logs.
var terraformLevels = []string{"TF_LOG", "TF_LOG_PROVIDER"}

// sdkLevels are the provider-side levels of the plugin SDKs' loggers
// (terraform-plugin-go, terraform-plugin-framework and their root).
var sdkLevels = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// Env reads and sets the process environment (os.Getenv and os.Setenv).
type Env struct {
	Get func(string) string
	Set func(string, string) error
}

// Unread reports whether Terraform drops the provider's logs: neither of
// its switches is set to a level.
func Unread(getenv func(string) string) bool {
	for _, name := range terraformLevels {
		if v := strings.TrimSpace(getenv(name)); v != "" && !strings.EqualFold(v, "off") {
			return false
		}
	}
	return true
}

// Quiet sets to OFF each provider-side log level that is unset (the SDKs'
// and TF_LOG_PROVIDER_<NAME>, name being the provider's type name), when
// Unread. A level set by hand is kept, and nothing is changed when
// Terraform shows the logs. It returns the variables it set, in order.
// Call it before the provider serves its first request; not in debug
// mode, where the provider's stderr is the developer's terminal.
func Quiet(name string, env Env) ([]string, error) {
	if !Unread(env.Get) {
		return nil, nil
	}
	var set []string
	for _, v := range append(append([]string{}, sdkLevels...), "TF_LOG_PROVIDER_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))) {
		if env.Get(v) != "" {
			continue
		}
		if err := env.Set(v, "OFF"); err != nil {
			return set, err
		}
		set = append(set, v)
	}
	return set, nil
}

// QuietProcess is Quiet on this process's environment, for a provider's
// main: when it cannot set a level, it logs a warning and leaves the
// levels as they are, for the provider to serve anyway.
func QuietProcess(name string) {
	if _, err := Quiet(name, Env{Get: os.Getenv, Set: os.Setenv}); err != nil {
		log.Printf("[WARN] leaving the SDK log levels as they are: %v", err)
	}
}
