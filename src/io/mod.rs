//! The adapters: the only code that touches devices, sockets, audio, disk and the clock.
