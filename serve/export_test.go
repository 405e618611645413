package serve

// Waiting returns the number of requests waiting for estimate slots.
func (s *Server) Waiting() int { return int(s.slots.waiting.Load()) }

// Answer is the work of one endpoint, which tests replace.
type Answer = answer

// SetAnswer replaces the answer of the endpoint of command (predict,
// simulate, layercond, explore).
func (s *Server) SetAnswer(command string, a Answer) { s.answers[command] = a }

// AnswerOf returns the answer of the endpoint of command.
func (s *Server) AnswerOf(command string) Answer { return s.answers[command] }
