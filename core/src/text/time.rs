//! Timestamps and durations as people write them in claims.
//!
//! Timestamps: `2026-10-22T14:05Z` (what `date -u +%FT%RZ` writes), with seconds
//! (`14:05:30Z`, fractions allowed), or with an offset (`+02:00`, `+0200`, `+02`). A zone is
//! required: a claim read on another machine must mean the same instant.
//!
//! Durations: `90s`, `45m`, `2h`, `1h30m`, `1d`, combined largest unit first.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use nom::{
    branch::alt,
    bytes::complete::take_while_m_n,
    character::complete::{char, digit1, one_of},
    combinator::{all_consuming, map_res, opt, recognize},
    sequence::preceded,
    IResult, Parser,
};

pub type Time = DateTime<Utc>;

type Ymd = (u32, u32, u32);
type Hmsn = (u32, u32, u32, u32);

fn digits<'a>(n: usize) -> impl Parser<&'a str, Output = u32, Error = nom::error::Error<&'a str>> {
    map_res(
        take_while_m_n(n, n, |c: char| c.is_ascii_digit()),
        |s: &str| s.parse::<u32>(),
    )
}

fn date(input: &str) -> IResult<&str, (u32, u32, u32)> {
    let (input, year) = digits(4).parse(input)?;
    let (input, _) = char('-')(input)?;
    let (input, month) = digits(2).parse(input)?;
    let (input, _) = char('-')(input)?;
    let (input, day) = digits(2).parse(input)?;
    Ok((input, (year, month, day)))
}

fn clock(input: &str) -> IResult<&str, (u32, u32, u32, u32)> {
    let (input, hour) = digits(2).parse(input)?;
    let (input, _) = char(':')(input)?;
    let (input, minute) = digits(2).parse(input)?;
    let (input, second) = opt(preceded(char(':'), digits(2))).parse(input)?;
    let (input, frac) = opt(preceded(one_of(".,"), digit1)).parse(input)?;
    let nanos = frac
        .map(|f: &str| {
            let mut padded: String = f.chars().take(9).collect();
            while padded.len() < 9 {
                padded.push('0');
            }
            padded.parse::<u32>().unwrap_or(0)
        })
        .unwrap_or(0);
    Ok((input, (hour, minute, second.unwrap_or(0), nanos)))
}

/// Offset in seconds east of UTC.
fn zone(input: &str) -> IResult<&str, i32> {
    let utc = |i| -> IResult<&str, i32> {
        let (i, _) = one_of("Zz")(i)?;
        Ok((i, 0))
    };
    let offset = |i| -> IResult<&str, i32> {
        let (i, sign) = one_of("+-")(i)?;
        let (i, hours) = digits(2).parse(i)?;
        let (i, minutes) = opt(preceded(opt(char(':')), digits(2))).parse(i)?;
        let secs = (hours * 3600 + minutes.unwrap_or(0) * 60) as i32;
        Ok((i, if sign == '-' { -secs } else { secs }))
    };
    alt((utc, offset)).parse(input)
}

/// Why a timestamp did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    Syntax,
    NoZone,
    OutOfRange,
}

impl std::fmt::Display for TimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeError::Syntax => {
                "expected a time like 2026-10-22T14:05Z (date -u +%FT%RZ), with optional seconds or an offset such as +02:00"
            }
            TimeError::NoZone => {
                "the time has no zone; add Z for UTC (date -u +%FT%RZ) or an offset such as +02:00"
            }
            TimeError::OutOfRange => "the date or time is out of range",
        })
    }
}

/// Parses a whole string as a timestamp (surrounding whitespace is not allowed).
pub fn parse_time(text: &str) -> Result<Time, TimeError> {
    let head = |i| -> IResult<&str, (Ymd, Hmsn)> {
        let (i, d) = date(i)?;
        let (i, _) = one_of("Tt ")(i)?;
        let (i, c) = clock(i)?;
        Ok((i, (d, c)))
    };
    let (rest, ((year, month, day), (hour, minute, second, nanos))) =
        head(text).map_err(|_| TimeError::Syntax)?;
    let offset = match all_consuming(zone).parse(rest) {
        Ok((_, offset)) => offset,
        Err(_) if rest.is_empty() => return Err(TimeError::NoZone),
        Err(_) => return Err(TimeError::Syntax),
    };
    let date = NaiveDate::from_ymd_opt(year as i32, month, day).ok_or(TimeError::OutOfRange)?;
    // Leap seconds (`:60`) are clamped to :59.999 rather than refused.
    let (second, nanos) = if second == 60 {
        (59, 999_999_999)
    } else {
        (second, nanos)
    };
    let time =
        NaiveTime::from_hms_nano_opt(hour, minute, second, nanos).ok_or(TimeError::OutOfRange)?;
    let zone = FixedOffset::east_opt(offset).ok_or(TimeError::OutOfRange)?;
    let local = NaiveDateTime::new(date, time)
        .and_local_timezone(zone)
        .single()
        .ok_or(TimeError::OutOfRange)?;
    Ok(local.with_timezone(&Utc))
}

/// True when a field looks like someone meant a date (`2026-…`), even if it does not parse.
pub fn looks_like_time(text: &str) -> bool {
    recognize((digits(4), char::<&str, nom::error::Error<&str>>('-')))
        .parse(text)
        .is_ok()
}

/// The form Rail writes: UTC with seconds, e.g. `2026-10-22T14:05:03Z`.
///
/// Written field by field: the board formats several times per claim, and chrono's strftime
/// machinery would also add its whole formatter to the WebAssembly build. Years outside
/// 0..=9999 are written the way chrono's `%Y` does (`+10000`, `-0001`).
pub fn format_time(time: Time) -> String {
    use chrono::{Datelike, Timelike};
    let year = time.year();
    if let Ok(year @ 0..=9999) = u32::try_from(year) {
        // The usual case, filled into its fixed form: one allocation, no per-field appends.
        let mut text = *b"0000-00-00T00:00:00Z";
        let mut put = |at: usize, n: u32| {
            text[at] = b'0' + (n / 10 % 10) as u8;
            text[at + 1] = b'0' + (n % 10) as u8;
        };
        put(0, year / 100);
        put(2, year);
        put(5, time.month());
        put(8, time.day());
        put(11, time.hour());
        put(14, time.minute());
        put(17, time.second());
        return String::from_utf8_lossy(&text).into_owned();
    }
    let push = |out: &mut String, n: u32, width: usize| push_number(out, u64::from(n), width);
    let mut out = String::with_capacity(21);
    if year > 9999 {
        out.push('+');
    } else if year < 0 {
        out.push('-');
    }
    push(&mut out, year.unsigned_abs(), 4);
    for (sep, n) in [
        ('-', time.month()),
        ('-', time.day()),
        ('T', time.hour()),
        (':', time.minute()),
        (':', time.second()),
    ] {
        out.push(sep);
        push(&mut out, n, 2);
    }
    out.push('Z');
    out
}

/// Appends `n` in decimal, padded with zeros to at least `width` digits. Written out rather than
/// through `to_string`/`format!`: times and durations are formatted several times per claim on
/// every board, and the formatting machinery (a string per number, calls through `dyn Write`)
/// was most of that cost, in WebAssembly even more than natively.
pub fn push_number(out: &mut String, n: u64, width: usize) {
    let mut digits = [b'0'; 20]; // u64::MAX has 20 digits
    let mut start = digits.len();
    // Digits are taken in 32 bits once the rest fits: WebAssembly has no 64×64→128-bit multiply
    // for dividing by a constant, so a 64-bit `/ 10` there is a real division instruction, several
    // times slower than the multiply and shift a 32-bit one compiles to.
    let mut wide = n;
    while wide > u64::from(u32::MAX) {
        start -= 1;
        digits[start] = b'0' + (wide % 10) as u8;
        wide /= 10;
    }
    let mut rest = wide as u32; // fits: the loop above ran until it did
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    // The buffer starts out all zeros, so padding to up to 20 digits is a matter of where the
    // copy starts; the digits go in with one copy rather than one `push` each.
    for _ in digits.len()..width {
        out.push('0');
    }
    let start = start.min(digits.len().saturating_sub(width));
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

/// Why a duration did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// Not of the `1d2h30m15s` form.
    Malformed,
    /// Well formed, but nothing (`0s`, `0h0m`).
    Zero,
    /// More than ten years.
    TooLong,
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DurationError::Malformed => "expected a duration like 45m, 2h, 1h30m or 1d",
            DurationError::Zero => {
                "a duration of zero is not a lease: give one longer than nothing, like 45m or 2h"
            }
            DurationError::TooLong => "a duration longer than ten years is taken for a typo",
        })
    }
}

/// Parses `1d2h30m15s` style durations (at least one part, units in decreasing order, no
/// repeats). Zero is refused: a lease of nothing is a mistake.
pub fn parse_duration(text: &str) -> Result<TimeDelta, DurationError> {
    let mut rest = text;
    let mut total: i64 = 0;
    let mut last_rank = usize::MAX;
    if rest.is_empty() {
        return Err(DurationError::Malformed);
    }
    while !rest.is_empty() {
        let part = |i| -> IResult<&str, (&str, char)> { (digit1, one_of("dhms")).parse(i) };
        let (after, (number, unit)) = part(rest).map_err(|_| DurationError::Malformed)?;
        let rank = match unit {
            'd' => 0,
            'h' => 1,
            'm' => 2,
            _ => 3,
        };
        if last_rank != usize::MAX && rank <= last_rank {
            return Err(DurationError::Malformed);
        }
        last_rank = rank;
        let n: i64 = number.parse().map_err(|_| DurationError::Malformed)?;
        let scale = [86_400, 3_600, 60, 1][rank];
        total = n
            .checked_mul(scale)
            .and_then(|v| total.checked_add(v))
            .ok_or(DurationError::TooLong)?;
        rest = after;
    }
    // Cap at ten years: anything longer is a typo, and it keeps arithmetic far from overflow.
    if total <= 0 {
        return Err(DurationError::Zero);
    }
    if total > 10 * 366 * 86_400 {
        return Err(DurationError::TooLong);
    }
    TimeDelta::try_seconds(total).ok_or(DurationError::TooLong)
}

/// Renders a duration for people and for the duration fields Rail writes: `2h13m`, `45m`,
/// `3d4h`, `30s`. Minutes are dropped once days are shown; seconds once minutes are.
pub fn format_duration(duration: TimeDelta) -> String {
    let secs = duration.num_seconds();
    let negative = secs < 0;
    let secs = secs.unsigned_abs();
    // The part below a day fits in 32 bits, where dividing by a constant is cheap in
    // WebAssembly too (see `push_number`).
    let (d, in_day) = (secs / 86_400, (secs % 86_400) as u32);
    let [h, m, s] = [in_day / 3_600, in_day % 3_600 / 60, in_day % 60].map(u64::from);
    let mut out = String::with_capacity(12);
    if negative {
        out.push('-');
    }
    let mut part = |n: u64, unit: char| {
        push_number(&mut out, n, 0);
        out.push(unit);
    };
    if d > 0 {
        part(d, 'd');
        if h > 0 {
            part(h, 'h');
        }
    } else if h > 0 {
        part(h, 'h');
        if m > 0 {
            part(m, 'm');
        }
    } else if m > 0 {
        part(m, 'm');
    } else {
        part(s, 's');
    }
    out
}

/// Exact form for writing back into files (`1h30m`, `45m`, `90s` → `1m30s`).
pub fn format_duration_exact(duration: TimeDelta) -> String {
    let secs = duration.num_seconds().max(0);
    let (d, h, m, s) = (
        secs / 86_400,
        secs % 86_400 / 3_600,
        secs % 3_600 / 60,
        secs % 60,
    );
    let mut out = String::new();
    for (n, unit) in [(d, 'd'), (h, 'h'), (m, 'm'), (s, 's')] {
        if n > 0 {
            push_number(&mut out, n.unsigned_abs(), 0);
            out.push(unit);
        }
    }
    if out.is_empty() {
        out.push_str("0s");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> String {
        format_time(parse_time(text).unwrap())
    }

    #[test]
    fn push_number_is_zero_padded_decimal() {
        let mut values: Vec<u64> = (0..2_000).collect();
        values.extend([9_999, 10_000, 99_999, 4_294_967_295, u64::MAX - 1, u64::MAX]);
        values.extend((0..64).map(|bit| 1u64 << bit));
        for n in values {
            for width in [0, 1, 2, 4, 7, 25] {
                let mut out = String::from("x");
                push_number(&mut out, n, width);
                assert_eq!(out, format!("x{n:0width$}"), "n={n} width={width}");
            }
        }
    }

    /// The rules as first written with `format!`, kept as the oracle for the hand-written form.
    fn duration_oracle(secs: i64) -> String {
        let sign = if secs < 0 { "-" } else { "" };
        let a = secs.unsigned_abs();
        let (d, h, m, s) = (a / 86_400, a % 86_400 / 3_600, a % 3_600 / 60, a % 60);
        let body = match (d, h, m) {
            (1.., 0, _) => format!("{d}d"),
            (1.., _, _) => format!("{d}d{h}h"),
            (0, 1.., 0) => format!("{h}h"),
            (0, 1.., _) => format!("{h}h{m}m"),
            (0, 0, 1..) => format!("{m}m"),
            _ => format!("{s}s"),
        };
        format!("{sign}{body}")
    }

    #[test]
    fn format_duration_matches_its_oracle() {
        let mut secs: Vec<i64> = (-4_000..4_000).collect();
        secs.extend((0..400).map(|i| i * 977 + 86_000));
        secs.extend([
            3_600 * 24 * 400,
            86_400 * 3 + 59,
            7_200,
            7_260,
            i64::from(i32::MAX),
            i64::from(u32::MAX) * 86_400 + 3_661, // days past 32 bits
            i64::MAX / 1_000,                     // TimeDelta's largest
        ]);
        for s in secs {
            for s in [s, -s] {
                assert_eq!(
                    format_duration(TimeDelta::seconds(s)),
                    duration_oracle(s),
                    "{s}s"
                );
            }
        }
    }

    #[test]
    fn seed_forms() {
        assert_eq!(utc("2026-10-22T14:05Z"), "2026-10-22T14:05:00Z");
        assert_eq!(utc("2026-10-22T14:05:30Z"), "2026-10-22T14:05:30Z");
        assert_eq!(utc("2026-10-22T14:05:30.250Z"), "2026-10-22T14:05:30Z");
        assert_eq!(utc("2026-10-22T16:05+02:00"), "2026-10-22T14:05:00Z");
        assert_eq!(utc("2026-10-22T16:05:00+0200"), "2026-10-22T14:05:00Z");
        assert_eq!(utc("2026-10-22T09:05-05"), "2026-10-22T14:05:00Z");
        assert_eq!(utc("2026-10-22 14:05z"), "2026-10-22T14:05:00Z");
    }

    #[test]
    fn format_time_matches_chrono() {
        for text in [
            "2026-10-22T14:05:03Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999Z",
            "2016-12-31T23:59:60Z",
        ] {
            let t = parse_time(text).unwrap();
            assert_eq!(format_time(t), t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
        }
        // A sweep over the fixed form's range, seconds to centuries.
        let start = parse_time("0001-01-01T00:00:00Z").unwrap();
        for step in 0..40_000 {
            let t = start + TimeDelta::seconds(step * 7_890_103);
            assert_eq!(format_time(t), t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
        }
        let far = parse_time("9999-12-31T23:59:59Z").unwrap() + TimeDelta::days(400);
        assert_eq!(
            format_time(far),
            far.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        );
        let early = parse_time("0001-01-01T00:00:00Z").unwrap() - TimeDelta::days(800);
        assert_eq!(
            format_time(early),
            early.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        );
    }

    #[test]
    fn bad_times() {
        assert_eq!(parse_time("2026-10-22T14:05"), Err(TimeError::NoZone));
        assert_eq!(parse_time("yesterday"), Err(TimeError::Syntax));
        assert_eq!(parse_time("2026-13-22T14:05Z"), Err(TimeError::OutOfRange));
        assert_eq!(parse_time("2026-10-22T25:05Z"), Err(TimeError::OutOfRange));
        assert_eq!(parse_time("2026-10-22T14:05Zjunk"), Err(TimeError::Syntax));
        assert_eq!(parse_time(""), Err(TimeError::Syntax));
        assert!(looks_like_time("2026-10-2"));
        assert!(!looks_like_time("26-10-22"));
    }

    #[test]
    fn durations() {
        let d = |s| parse_duration(s).map(|d| d.num_seconds());
        assert_eq!(d("45m"), Ok(2700));
        assert_eq!(d("2h"), Ok(7200));
        assert_eq!(d("1h30m"), Ok(5400));
        assert_eq!(d("1d"), Ok(86_400));
        assert_eq!(d("90s"), Ok(90));
        for bad in [
            "",
            "0m",
            "30m1h",
            "1h1h",
            "soon",
            "1.5h",
            "-1h",
            "99999999999999d",
        ] {
            assert!(d(bad).is_err(), "{bad}");
        }
        assert_eq!(
            format_duration(TimeDelta::seconds(2 * 3600 + 13 * 60 + 5)),
            "2h13m"
        );
        assert_eq!(format_duration(TimeDelta::seconds(45 * 60)), "45m");
        assert_eq!(format_duration(TimeDelta::seconds(30)), "30s");
        assert_eq!(format_duration(TimeDelta::seconds(-90)), "-1m");
        assert_eq!(
            format_duration(TimeDelta::seconds(3 * 86_400 + 4 * 3600)),
            "3d4h"
        );
        assert_eq!(format_duration_exact(TimeDelta::seconds(5400)), "1h30m");
    }
}
