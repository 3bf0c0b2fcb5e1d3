//! `annabella convert`: games in, games out, in any notation the core reads and writes.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use shakmaty::{Chess, Color, Position};

use crate::chess::game::{Game, GameEnd};
use crate::chess::language::Language;
use crate::chess::notation::movelist::{self, GameText};
use crate::chess::notation::spoken;
use crate::chess::notation::{self, Notation, Style};
use crate::chess::pgn;
use crate::chess::scoresheet::{Headers, Recorder, Scoresheet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum From {
    Auto,
    San,
    Lan,
    Uci,
    Iccf,
    Telegraph,
    Spoken,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum To {
    San,
    Lan,
    Uci,
    Iccf,
    Telegraph,
    Spoken,
    Pgn,
    /// A Braille scoresheet in Unicode braille.
    Braille,
    /// The same scoresheet as a .brf file (North American ASCII Braille, 40 cells, 25 lines).
    Brf,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Notation of a bare move list (PGN input is always read as PGN).
    #[arg(long, value_enum, default_value_t = From::Auto)]
    pub from: From,
    #[arg(long, value_enum, default_value_t = To::San)]
    pub to: To,
    #[command(flatten)]
    pub language: super::LanguageArgs,
    #[command(flatten)]
    pub start: super::StartArgs,
    /// Input file; `-` or nothing for standard input.
    pub file: Option<PathBuf>,
}

impl From {
    fn notation(self) -> Option<Notation> {
        match self {
            From::Auto => None,
            From::San => Some(Notation::San),
            From::Lan => Some(Notation::Lan),
            From::Uci => Some(Notation::Uci),
            From::Iccf => Some(Notation::Iccf),
            From::Telegraph => Some(Notation::Telegraph),
            From::Spoken => Some(Notation::Spoken),
        }
    }
}

/// One game read from the input, with what the exports need.
struct ReadGame {
    sheet: Scoresheet,
    headers: Headers,
    /// The players played on past an end the Laws make by themselves: the half-moves before
    /// it and that end (said on standard error; the score is converted whole).
    played_past: Option<(usize, GameEnd)>,
}

pub fn run(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let lang = args.language.load()?;
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    let text = super::read_bounded(&path, super::MAX_INPUT_BYTES)
        .map_err(|e| anyhow::anyhow!("{}: {}", display_path(&path), e.root_cause()))?;
    let style = Style {
        lang: &lang,
        verbosity: args.language.verbosity,
        name_captured: args.language.name_captured,
        figurines: false,
    };

    // Each game is converted and written as soon as it is read, so that a large input never
    // has all its games in memory at once.
    let mut output = Output {
        out: std::io::stdout().lock(),
        to: args.to,
        style: &style,
        path: &path,
        games: 0,
        failed: false,
        first_output: true,
        write_error: None,
    };
    if looks_like_pgn(&text) {
        pgn::for_each_game(&text, |r| {
            output.game(
                r.map(|g| ReadGame {
                    sheet: g.scoresheet(),
                    headers: g.headers(),
                    played_past: g.played_past,
                })
                .map_err(|e| e.to_string()),
            );
        });
    } else {
        let template = args.start.game()?;
        // Spoken moves have spaces in them, so a spoken list is one move a line; without
        // --from it is recognised by its words (what `--to spoken` writes reads back as is).
        let spoken = match args.from {
            From::Spoken => true,
            From::Auto => movelist::every_move_line(&text, |line| spoken::looks_like(line, &lang)),
            _ => false,
        };
        movelist::for_each_game(&text, spoken, |g| {
            let number = output.games + 1;
            output.game(
                read_bare_game(&g, &template, args.from.notation(), &lang)
                    .map_err(|e| format!("game {number}, {e}")),
            );
        });
    }
    if let Some(e) = output.write_error {
        return Err(e.into());
    }
    output.out.flush()?;
    if output.games == 0 {
        eprintln!("annabella: {}: no moves found", display_path(&path));
        return Ok(ExitCode::FAILURE);
    }
    Ok(if output.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Where converted games go: standard output for good games, standard error for bad ones.
struct Output<'a, W: std::io::Write> {
    out: W,
    to: To,
    style: &'a Style<'a>,
    path: &'a std::path::Path,
    /// Games seen so far, good or bad.
    games: usize,
    failed: bool,
    first_output: bool,
    /// Standard output failed (a closed pipe): nothing more is written.
    write_error: Option<std::io::Error>,
}

impl<W: std::io::Write> Output<'_, W> {
    fn game(&mut self, game: Result<ReadGame, String>) {
        self.games += 1;
        if self.write_error.is_some() {
            return;
        }
        let written = match game {
            Ok(g) => {
                if let Some((plies, end)) = g.played_past {
                    eprintln!(
                        "annabella: {}: game {}: played on after half-move {plies}, where the \
                         game ended by the Laws ({end}); converted as played",
                        display_path(self.path),
                        self.games
                    );
                }
                let rendered = render(&g, self.to, self.style);
                let separator = match self.to {
                    _ if self.first_output => "",
                    // Spoken output is one line per move, PGN has a blank line after each
                    // game, a braille scoresheet is pages: an empty line separates games.
                    To::Spoken | To::Pgn | To::Braille => "\n",
                    // A .brf game starts on a new page.
                    To::Brf => "\u{c}",
                    // One line per game.
                    To::San | To::Lan | To::Uci | To::Iccf | To::Telegraph => "",
                };
                self.first_output = false;
                self.out
                    .write_all(separator.as_bytes())
                    .and_then(|()| self.out.write_all(rendered.as_bytes()))
            }
            Err(message) => {
                self.failed = true;
                debug_assert!(message.starts_with(&format!("game {}", self.games)));
                self.out.flush().map(|()| {
                    eprintln!("annabella: {}: {message}", display_path(self.path));
                })
            }
        };
        if let Err(e) = written {
            self.write_error = Some(e);
        }
    }
}

fn display_path(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// PGN has tag pairs (`[Event "…"]`), each on a line of its own; a bare move list never does.
/// They need not come first: a PGN file may open with a `;` comment or `%` escape line, a
/// `{comment}`, or a game without tags.
fn looks_like_pgn(text: &str) -> bool {
    text.lines().any(is_tag_pair_line)
}

fn is_tag_pair_line(line: &str) -> bool {
    let t = line.trim().trim_start_matches('\u{feff}');
    let Some(inner) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return false;
    };
    let name = inner
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    name > 0 && inner[name..].trim_start().starts_with('"')
}

fn read_bare_game(
    text: &GameText,
    template: &Game,
    from: Option<Notation>,
    lang: &Language,
) -> Result<ReadGame, String> {
    let mut game = template.clone();
    let mut played_past = None;
    for token in &text.moves {
        let pos = game.position().clone();
        let ply = game.ply_count() + 1;
        if ply > pgn::MAX_PLIES {
            return Err(format!(
                "ply {ply} ({}), line {}: {:?}: more than {} half-moves in one game",
                move_label(&pos),
                token.line,
                cut(&token.text, notation::MAX_MOVE_BYTES),
                pgn::MAX_PLIES
            ));
        }
        if let Some(written) = token.number {
            let at = (pos.fullmoves().get(), pos.turn());
            if written != at {
                return Err(format!(
                    "ply {ply} ({}), line {}: {:?}: {}",
                    move_label(&pos),
                    token.line,
                    cut(&token.text, notation::MAX_MOVE_BYTES),
                    notation::numbered::wrong_number(written, at)
                ));
            }
        }
        let mv = notation::parse_move(&pos, game.castling_mode(), &token.text, from, lang)
            .map_err(|e| format!("ply {ply} ({}), line {}: {e}", move_label(&pos), token.line))?;
        // A score is converted as it was played, as PGN import does: moves after a dead
        // position (or another end the Laws make by themselves) are kept and the end noted;
        // a move after mate, stalemate or a declared end is still refused.
        let passed = game.play_past_automatic_end(mv).map_err(|e| {
            format!(
                "ply {ply} ({}), line {}: {:?}: {e}",
                move_label(&pos),
                token.line,
                cut(&token.text, notation::MAX_MOVE_BYTES)
            )
        })?;
        if let (None, Some(end)) = (played_past, passed) {
            played_past = Some((ply - 1, end));
        }
    }
    if let Some(open) = text.unclosed {
        let what = if open.bracket == '{' {
            "comment"
        } else {
            "variation"
        };
        return Err(format!(
            "ply {} ({}), line {}: \"{}\": this {what} is never closed (a blank line or the end \
             of the text came first), so the moves after it are lost; close it or remove it",
            game.ply_count() + 1,
            move_label(game.position()),
            open.line,
            open.bracket
        ));
    }
    let headers = Headers {
        result: game.outcome().map(|end| end.result),
        ..Headers::default()
    };
    Ok(ReadGame {
        sheet: Scoresheet::from_game(&game, Recorder::Imported),
        headers,
        played_past,
    })
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// "3." for White's third move, "3..." for Black's.
fn move_label(pos: &Chess) -> String {
    let n = pos.fullmoves();
    match pos.turn() {
        Color::White => format!("{n}."),
        Color::Black => format!("{n}..."),
    }
}

fn render(g: &ReadGame, to: To, style: &Style) -> String {
    let game = g.sheet.game();
    let mode = game.castling_mode();
    let line_of = |notation: Notation| -> String {
        let mut pos = game.start_position().clone();
        let mut line = String::new();
        for &m in game.moves() {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&notation::format_move(&pos, mode, m, notation, style));
            pos.play_unchecked(m);
        }
        line.push('\n');
        line
    };
    match to {
        To::San => line_of(Notation::San),
        To::Lan => line_of(Notation::Lan),
        To::Uci => line_of(Notation::Uci),
        To::Iccf => line_of(Notation::Iccf),
        To::Telegraph => line_of(Notation::Telegraph),
        To::Spoken => {
            let mut pos = game.start_position().clone();
            let mut text = String::new();
            for &m in game.moves() {
                let _ = writeln!(
                    text,
                    "{}",
                    notation::format_move(&pos, mode, m, Notation::Spoken, style)
                );
                pos.play_unchecked(m);
            }
            text
        }
        To::Pgn => g.sheet.to_pgn(&g.headers),
        To::Braille | To::Brf => {
            // The Braille score is in the player's own notation: SAN with his language's letters.
            let doc = g.sheet.to_braille(&g.headers, |pos, m| {
                notation::format_move(pos, mode, m, Notation::San, style)
            });
            if to == To::Brf {
                doc.to_brf()
            } else {
                doc.to_unicode()
            }
        }
    }
}
