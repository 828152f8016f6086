// Package testsupport holds what the tests of several packages share:
// polling to a deadline, checks of errors and Jobs, and the start and stop
// of a sandbox in a TestMain. Only _test.go files import it (depguard
// holds the rest of the module to that).
package testsupport
