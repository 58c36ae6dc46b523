// Package mocks holds moq-generated mocks of every port (go generate ./ports).
package mocks
