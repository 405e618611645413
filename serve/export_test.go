package serve

import "time"

// Waiting returns the number of requests waiting for estimate slots.
func (s *Server) Waiting() int {
	s.slots.mu.Lock()
	defer s.slots.mu.Unlock()
	return len(s.slots.queue)
}

// Answer is the work of one endpoint, which tests replace.
type Answer = answer

// SetAnswer replaces the answer of the endpoint of command (predict,
// simulate, layercond, explore).
func (s *Server) SetAnswer(command string, a Answer) { s.answers[command] = a }

// AnswerOf returns the answer of the endpoint of command.
func (s *Server) AnswerOf(command string) Answer { return s.answers[command] }

// RecordRun records that the answer of the endpoint of command ran for d,
// as a finished request's work is recorded for the Retry-After estimate.
func (s *Server) RecordRun(command string, d time.Duration) {
	for _, ep := range lineEndpoints {
		if ep.command == command {
			s.slots.mu.Lock()
			s.slots.record(s.slotsOf(ep), d)
			s.slots.mu.Unlock()
			return
		}
	}
	panic("serve: no endpoint of command " + command)
}
