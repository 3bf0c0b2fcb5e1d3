//! Sensor events to moves: touched, made, promotion pending, illegal, mismatch, takeback (FIDE D.2.2, D.2.3).
