//! One sort for all of core.
//!
//! std's sort is large and is compiled again for every element type and comparator; core's dozen
//! sorts cost about 100 KB of WebAssembly that way. Here the sorting itself is done once, on
//! indices, behind a `dyn` comparator; only the small permutation step is generic. Stable, like
//! `slice::sort_by`.

use std::cmp::Ordering;

#[allow(
    clippy::disallowed_methods,
    reason = "the one std sort in core: every other sort comes through here"
)]
fn sort_indices(order: &mut [u32], cmp: &dyn Fn(u32, u32) -> Ordering) {
    order.sort_by(|a, b| cmp(*a, *b));
}

/// Sorts `items` by `cmp`, keeping equal items in their order.
pub fn sort_by<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    sort_indices(&mut order, &|a, b| {
        cmp(&items[a as usize], &items[b as usize])
    });
    let mut taken: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| taken[i as usize].take()));
}

/// Sorts `items` by a key, keeping equal items in their order.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        sort_by_key(&mut v, |p| p.0);
        assert_eq!(v, [(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
        let mut words = vec!["b".to_string(), "a".to_string()];
        sort_by(&mut words, |a, b| a.cmp(b));
        assert_eq!(words, ["a", "b"]);
        let mut empty: Vec<u8> = Vec::new();
        sort_by(&mut empty, |a, b| a.cmp(b));
        assert!(empty.is_empty());
    }
}
