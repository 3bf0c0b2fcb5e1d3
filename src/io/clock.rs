//! The one place that reads the system clocks: milliseconds since the process started, the wall
//! clock, the boot-time clock and the boot's identity; a table's time ([`TableClock`]), which
//! also notices when the daemon did not run (a stall); and a restart's gap measured from the
//! last sign of life ([`restart_gap`]).

use std::sync::OnceLock;
use std::time::Instant;

use crate::boards::Millis;
use crate::io::store::Alive;
use crate::table::state::{Downtime, Now, RestartGap};

/// The daemon's task for a table wakes at least this often when it watches for stalls.
pub const PULSE_MS: u64 = 250;
/// A gap longer than this in the life of a table's task (or of the boot-time clock against it)
/// is a stall: the process was stopped, starved, or the machine suspended.
pub const STALL_MS: u64 = 1000;
/// After a stall, input read within this long is judged as of the stall's start (at the
/// latest): what was queued in the sockets and devices while the daemon did not run is read in
/// this window, before any flag is judged.
pub const CATCH_UP_MS: u64 = 500;

/// Monotonic milliseconds since the first call; every adapter stamps events with this.
pub fn now_ms() -> Millis {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as Millis
}

/// Wall-clock milliseconds since the Unix epoch, for transcripts and records.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `CLOCK_BOOTTIME` in milliseconds: monotonic since boot, counting a suspend too.
#[cfg(unix)]
pub fn boot_ms() -> Option<u64> {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_BOOTTIME).ok()?;
    let ms = i128::from(t.tv_sec()) * 1000 + i128::from(t.tv_nsec()) / 1_000_000;
    u64::try_from(ms).ok()
}

/// The CPU time this process has used, in milliseconds: it goes on while the process runs
/// (however busy), and stands still while it is stopped or the machine is suspended.
#[cfg(unix)]
pub fn process_cpu_ms() -> Option<u64> {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID).ok()?;
    let ms = i128::from(t.tv_sec()) * 1000 + i128::from(t.tv_nsec()) / 1_000_000;
    u64::try_from(ms).ok()
}

/// Milliseconds since boot, counting a suspend too (Windows' tick count, as `CLOCK_BOOTTIME`).
#[cfg(windows)]
pub fn boot_ms() -> Option<u64> {
    // SAFETY: GetTickCount64 takes nothing and cannot fail.
    Some(unsafe { windows_sys::Win32::System::SystemInformation::GetTickCount64() })
}

/// The CPU time this process has used, in milliseconds (kernel and user time, which Windows
/// counts in 100 ns units).
#[cfg(windows)]
pub fn process_cpu_ms() -> Option<u64> {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: the four pointers are to FILETIMEs that live across the call; the handle is the
    // current process's pseudo-handle, which needs no closing.
    let ok = unsafe {
        GetProcessTimes(
            GetCurrentProcess(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return None;
    }
    let units = |t: FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
    Some(units(kernel).saturating_add(units(user)) / 10_000)
}

/// This boot's identity (`/proc/sys/kernel/random/boot_id`), which changes at every reboot.
pub fn boot_id() -> Option<String> {
    static ID: OnceLock<Option<String>> = OnceLock::new();
    ID.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let id = text.trim();
        (!id.is_empty() && id.len() <= 64).then(|| id.to_owned())
    })
    .clone()
}

/// `table`'s sign of life now, at table time `table_ms`, for the heartbeat.
pub fn alive(table: &str, table_ms: Millis) -> Alive {
    Alive {
        table: table.to_owned(),
        table_ms,
        at_unix_ms: unix_ms(),
        boot_id: boot_id(),
        boot_ms: boot_ms(),
    }
}

/// The gap of a restart at `now_unix_ms` after the last sign of life: the table's own
/// (`alive`, when the journal has it) or the daemon's wall-clock heartbeat (`heartbeat_unix_ms`,
/// or the last record's wall time). The downtime is measured by the boot-time clock when the
/// boot is the same, otherwise by the wall clock (the core bounds it).
pub fn restart_gap(alive: Option<&Alive>, heartbeat_unix_ms: u64, now_unix_ms: u64) -> RestartGap {
    let wall = |from: u64| Downtime::Wall {
        measured_ms: (i128::from(now_unix_ms) - i128::from(from))
            .clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
    };
    let Some(a) = alive else {
        return RestartGap {
            alive_table_ms: None,
            alive_unix_ms: heartbeat_unix_ms,
            downtime: wall(heartbeat_unix_ms),
        };
    };
    let same_boot = a.boot_id.is_some() && a.boot_id == boot_id();
    let downtime = match (same_boot, a.boot_ms, boot_ms()) {
        (true, Some(then), Some(now)) => Downtime::BootClock {
            ms: now.saturating_sub(then),
        },
        _ => wall(a.at_unix_ms),
    };
    RestartGap {
        alive_table_ms: Some(a.table_ms),
        alive_unix_ms: a.at_unix_ms,
        downtime,
    }
}

/// A table's time: monotonic milliseconds that go on from where the table's journal left off
/// (so a restored game's clocks continue), with the wall clock beside it for labels. The chess
/// clock only ever sees table time, so a wall clock stepped by NTP or by hand never reaches a
/// player's time. Built on tokio's clock, so tests can pause time.
///
/// The daemon's table clock also watches for stalls ([`TableClock::wake`]): when the table's
/// task did not run for more than [`STALL_MS`] (the process stopped or starved, the machine
/// suspended), input read in the next [`CATCH_UP_MS`] is judged as of the stall's start at the
/// latest ([`TableClock::input_now`]) and no deadline (a flag) is judged before that window
/// ends, so a move that reached the machine before the flag fell is in time.
#[derive(Clone)]
pub struct TableClock {
    /// The monotonic instant that was table time `base`.
    origin: tokio::time::Instant,
    base: Millis,
    /// Wall time in Unix milliseconds (the system clock; a test may step it).
    wall: std::sync::Arc<dyn Fn() -> u64 + Send + Sync>,
    /// Watching for stalls (the daemon's clocks; a test's paused clock does not).
    stalls: Option<StallWatch>,
    /// Milliseconds of stalls forgiven ([`TableClock::forgive_stall`]), left out of table time;
    /// shared by every copy (the heartbeat reads the same table time).
    forgiven: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// When the table's task last ran, and the catch-up after a stall.
#[derive(Clone, Copy, Debug)]
struct StallWatch {
    last_alive: tokio::time::Instant,
    last_boot_ms: Option<u64>,
    /// The process's CPU time then: a gap in which the process kept running (its other tasks
    /// busy with a flood) is no stall of the daemon, only a late task.
    last_cpu_ms: Option<u64>,
    /// After a stall: input until this instant is judged as of this table time at the latest.
    catch_up: Option<(tokio::time::Instant, Millis)>,
}

impl TableClock {
    /// Table time `base` now, with the system's wall clock, watching for stalls.
    pub fn starting_at(base: Millis) -> TableClock {
        TableClock::with_wall(base, std::sync::Arc::new(unix_ms)).watching_stalls()
    }

    /// Table time `base` now, with another wall clock (a test's), not watching for stalls.
    pub fn with_wall(
        base: Millis,
        wall: std::sync::Arc<dyn Fn() -> u64 + Send + Sync>,
    ) -> TableClock {
        TableClock {
            origin: tokio::time::Instant::now(),
            base,
            wall,
            stalls: None,
            forgiven: std::sync::Arc::default(),
        }
    }

    /// This clock watching for stalls of the task that reads it.
    pub fn watching_stalls(mut self) -> TableClock {
        self.stalls = Some(StallWatch {
            last_alive: tokio::time::Instant::now(),
            last_boot_ms: boot_ms(),
            last_cpu_ms: process_cpu_ms(),
            catch_up: None,
        });
        self
    }

    pub fn now(&self) -> Now {
        Now {
            table_ms: self.table_ms_at(tokio::time::Instant::now()),
            unix_ms: (self.wall)(),
        }
    }

    fn forgiven_ms(&self) -> Millis {
        self.forgiven.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn table_ms_at(&self, at: tokio::time::Instant) -> Millis {
        (self.base + at.saturating_duration_since(self.origin).as_millis() as Millis)
            .saturating_sub(self.forgiven_ms())
    }

    /// The monotonic instant of table time `t` (for sleeping until a deadline).
    pub fn instant_of(&self, t: Millis) -> tokio::time::Instant {
        let since_origin = (t + self.forgiven_ms()).saturating_sub(self.base);
        self.origin + std::time::Duration::from_millis(since_origin)
    }

    /// During the catch-up after a stall, a move reached the table (judged as of the stall's
    /// start): its opponent could not know of it before the daemon ran again, so the stall is
    /// charged to nobody — table time goes on from the stall's start, now.
    pub fn forgive_stall(&mut self) {
        let Some(at) = self.catching_up() else {
            return;
        };
        let now = self.table_ms_at(tokio::time::Instant::now());
        self.forgiven
            .fetch_add(now.saturating_sub(at), std::sync::atomic::Ordering::SeqCst);
    }

    /// The table's task is running (call it after each piece of work): a stall is a gap after
    /// this.
    pub fn alive(&mut self) {
        if let Some(w) = &mut self.stalls {
            w.last_alive = tokio::time::Instant::now();
            w.last_boot_ms = boot_ms();
            w.last_cpu_ms = process_cpu_ms();
        }
    }

    /// The table's task woke: if it did not run for more than [`STALL_MS`] (by the monotonic
    /// clock, or by the boot-time clock, which counts a suspend), the stall's length in
    /// milliseconds; a catch-up window then begins (see [`TableClock::input_now`]).
    pub fn wake(&mut self) -> Option<u64> {
        let now = tokio::time::Instant::now();
        let boot_now = boot_ms();
        let w = self.stalls?;
        let mono_gap = now.saturating_duration_since(w.last_alive).as_millis() as u64;
        let boot_gap = match (w.last_boot_ms, boot_now) {
            (Some(then), Some(now)) => now.saturating_sub(then),
            _ => 0,
        };
        let gap = mono_gap.max(boot_gap);
        let cpu_now = process_cpu_ms();
        // The process used a quarter of the gap's time or more: it was running (its other
        // tasks serving a flood kept this one waiting), not stopped or suspended. Input read
        // now was read late by this task, not sent while the daemon stood still, and judging
        // it as of the gap's start would freeze the table's time under a long flood.
        let ran = match (w.last_cpu_ms, cpu_now) {
            (Some(then), Some(now)) => now.saturating_sub(then).saturating_mul(4) >= mono_gap,
            _ => false,
        };
        let from = self.table_ms_at(w.last_alive);
        let w = self.stalls.as_mut()?;
        w.last_alive = now;
        w.last_boot_ms = boot_now;
        w.last_cpu_ms = cpu_now;
        if gap <= STALL_MS || (ran && boot_gap <= mono_gap + STALL_MS) {
            return None;
        }
        let at = match w.catch_up {
            Some((until, earlier)) if now < until => earlier.min(from),
            _ => from,
        };
        w.catch_up = Some((now + std::time::Duration::from_millis(CATCH_UP_MS), at));
        Some(gap)
    }

    /// During the catch-up after a stall, the table time input is judged as of (at the latest).
    pub fn catching_up(&mut self) -> Option<Millis> {
        let w = self.stalls.as_mut()?;
        match w.catch_up {
            Some((until, at)) if tokio::time::Instant::now() < until => Some(at),
            Some(_) => {
                w.catch_up = None;
                None
            }
            None => None,
        }
    }

    /// The time to judge input by: now, or during the catch-up after a stall the stall's start
    /// at the latest — a move sent while the daemon did not run is judged at the time the
    /// daemon should have read it.
    pub fn input_now(&mut self) -> Now {
        let now = self.now();
        match self.catching_up() {
            Some(at) => Now {
                table_ms: now.table_ms.min(at),
                ..now
            },
            None => now,
        }
    }

    /// When the table's task must wake, given the table's own `deadline`: while catching up
    /// after a stall not before the catch-up ends, and every [`PULSE_MS`] when watching for
    /// stalls.
    pub fn wake_by(&self, deadline: Option<tokio::time::Instant>) -> Option<tokio::time::Instant> {
        let Some(w) = &self.stalls else {
            return deadline;
        };
        let deadline = match w.catch_up {
            Some((until, _)) => deadline.map(|d| d.max(until)),
            None => deadline,
        };
        let pulse = tokio::time::Instant::now() + std::time::Duration::from_millis(PULSE_MS);
        Some(deadline.map_or(pulse, |d| d.min(pulse)))
    }
}

impl std::fmt::Debug for TableClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableClock")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn clock() -> TableClock {
        TableClock::with_wall(1_000, std::sync::Arc::new(|| 0)).watching_stalls()
    }

    #[tokio::test(start_paused = true)]
    async fn a_gap_of_more_than_a_second_is_a_stall_and_input_after_it_is_judged_at_its_start() {
        let mut c = clock();
        tokio::time::advance(Duration::from_millis(PULSE_MS)).await;
        assert_eq!(c.wake(), None);
        assert_eq!(c.input_now().table_ms, 1_250);
        // Stopped for ten seconds.
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(c.wake(), Some(10_000));
        assert_eq!(
            c.input_now().table_ms,
            1_250,
            "judged as of the stall's start"
        );
        assert_eq!(c.now().table_ms, 11_250);
        // No deadline before the catch-up ends.
        let due = c.instant_of(5_000);
        assert!(c.wake_by(Some(due)).unwrap() > tokio::time::Instant::now());
        tokio::time::advance(Duration::from_millis(CATCH_UP_MS)).await;
        assert_eq!(c.catching_up(), None);
        assert_eq!(c.input_now().table_ms, 11_750);
    }

    #[tokio::test(start_paused = true)]
    async fn a_move_during_the_catch_up_leaves_the_stall_charged_to_nobody() {
        let mut c = clock();
        let heartbeat = c.clone();
        tokio::time::advance(Duration::from_secs(5)).await;
        assert_eq!(c.wake(), Some(5_000));
        c.forgive_stall();
        assert_eq!(c.now().table_ms, 1_000);
        assert_eq!(
            heartbeat.now().table_ms,
            1_000,
            "every copy reads the same time"
        );
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(c.now().table_ms, 2_000);
        assert_eq!(
            c.instant_of(2_000),
            tokio::time::Instant::now(),
            "deadlines follow"
        );
    }

    #[test]
    fn a_restart_in_the_same_boot_is_measured_by_the_boot_clock_else_by_the_wall_clock() {
        let Some(now_boot) = boot_ms() else { return };
        let alive = Alive {
            table: "t".into(),
            table_ms: 42,
            at_unix_ms: 10_000_000,
            boot_id: boot_id(),
            boot_ms: Some(now_boot.saturating_sub(5_000)),
        };
        // The wall clock says an hour passed; the boot clock says five seconds.
        let gap = restart_gap(Some(&alive), 0, 13_600_000);
        assert_eq!(gap.alive_table_ms, Some(42));
        match gap.downtime {
            Downtime::BootClock { ms } => assert!((5_000..6_000).contains(&ms), "{ms}"),
            other => panic!("{other:?}"),
        }
        let rebooted = Alive {
            boot_id: Some("another boot".into()),
            ..alive
        };
        assert_eq!(
            restart_gap(Some(&rebooted), 0, 13_600_000).downtime,
            Downtime::Wall {
                measured_ms: 3_600_000
            }
        );
    }
}
