"""rnn ops."""
