package serve

// Waiting returns the number of requests waiting for estimate slots.
func (s *Server) Waiting() int { return int(s.slots.waiting.Load()) }
