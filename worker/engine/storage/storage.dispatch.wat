;; The battery's horizon DP (storage.dispatch.ts, HorizonSolver) without a daily limit, as a
;; hand-written WebAssembly kernel (issue 39): `solve(…, value = false, planned)`, the rolling
;; horizon's call, with and without a load. The same IEEE operations in the same order as the
;; JavaScript (f64.min/max are Math.min/max on numbers that are not NaN), so the plans are the same
;; bits; bench/dp.wasm.probe.ts checks that on captured horizons. Inputs and outputs live in the
;; module's memory at fixed byte offsets (the loads' and stores' constant offsets below):
;;   price 0, free 384, priced 768, room 1152, unmet 1536, value 1920, grid 2304, gridPrice 2688
;;   (48 f64 each; `value` is each hour's contract price, the serving weight a parameter of `solve`);
;;   the plan's charge 3072 and discharge 3456 (48 f64 each).
;; Work space: skip 3840 (48 f64), count 4224 (48 i32), the hour's reward pieces fLen 4416 and
;; fSlope 4464 (6 f64 each), then the merged pieces' len 4608 and slope 116736 (48 × 292 f64 each:
;; MAX_PIECES = 6 × 48 + 4 a hour) and own 228864 (48 × 292 bytes); each hour's reward (a load's
;; too, at one serving weight), kept for the next horizon, in a ring of 48 slots of 112 bytes from
;; 242880: 6 f64 lengths then 6 f64 slopes (as fLen and fSlope lie), the hour's charging (f64, at 96)
;; and 8 × the pieces' count (i32, at 104); hour t's slot is (t + ring) mod 48. A committed day
;; (`commit`): the horizon's delivered MWh 248832 (48 f64, an input as price … are), each turn's
;; depth 249472 (24 f64), the SOC and direction at the day's end 249664 (f64), 249672 (i32); with a
;; load, the horizon's MWh of the plant's output that serves it 249728 and the limit's surplus
;; 250112 (48 f64 each, inputs as delivered is); the run's 25-year series (219,000 f64 each, hour i
;; at 8i): charge 262144, discharge 2014144, SOC 3766144, from the surplus 5518144, from the grid
;; 7270144 (to 9022144: 138 pages). EPS = 1e-9.
(module
  (memory (export "memory") 138)

  ;; Whether the ring's slots hold the reward of the last call's 48 hours, with or without a load
  ;; ($keptLoad), at these battery constants (and serving weight): the next horizon, moved down a
  ;; day by its caller, then reuses its first 24 hours' (the same hours, the same values: the same
  ;; bits), turning the ring by 24 instead of copying.
  (global $kept (mut i32) (i32.const 0))
  (global $ring (mut i32) (i32.const 0))
  (global $keptPower (mut f64) (f64.const 0))
  (global $keptEtaIn (mut f64) (f64.const 0))
  (global $keptEtaOut (mut f64) (f64.const 0))
  (global $keptCc (mut f64) (f64.const 0))
  (global $keptDc (mut f64) (f64.const 0))
  ;; Whether the slots hold a load's rewards (1) or a market's (0), and the serving weight they were
  ;; made with.
  (global $keptLoad (mut i32) (i32.const 0))
  (global $keptWeight (mut f64) (f64.const 0))

  ;; Whether an empty battery can earn anything (storage.dispatch.ts `worthwhile`): 1 or 0.
  (func $worthwhile (param $hours i32) (param $etaIn f64) (param $etaOut f64) (param $cc f64) (param $dc f64)
    (result i32)
    (local $t i32) (local $cheapest f64) (local $roundTrip f64) (local $p f64) (local $margin f64)
    (local $priced i32)
    (local.set $cheapest (f64.const inf))
    (local.set $roundTrip (f64.mul (local.get $etaIn) (local.get $etaOut)))
    (block $done
      (loop $hour
        (br_if $done (i32.ge_s (local.get $t) (local.get $hours)))
        (local.set $p (f64.load offset=0 (i32.shl (local.get $t) (i32.const 3))))
        (local.set $margin (f64.sub (local.get $p) (local.get $dc)))
        (if (f64.lt (local.get $cheapest) (f64.const inf))
          (then
            (if (f64.gt (local.get $margin) (f64.const 0))
              (then
                (if (f64.gt (f64.load offset=1152 (i32.shl (local.get $t) (i32.const 3))) (f64.const 1e-9))
                  (then
                    (if (f64.gt (f64.mul (local.get $margin) (local.get $roundTrip)) (local.get $cheapest))
                      (then (return (i32.const 1))))))))))
        (local.set $priced (f64.gt (f64.load offset=768 (i32.shl (local.get $t) (i32.const 3))) (f64.const 1e-9)))
        (if (local.get $priced)
          (then
            (if (f64.lt (f64.add (local.get $p) (local.get $cc)) (f64.const 0))
              (then (return (i32.const 1))))))
        (if (f64.gt (f64.load offset=384 (i32.shl (local.get $t) (i32.const 3))) (f64.const 1e-9))
          (then (local.set $cheapest (f64.min (local.get $cheapest) (local.get $cc)))))
        (if (local.get $priced)
          (then (local.set $cheapest (f64.min (local.get $cheapest) (f64.add (local.get $p) (local.get $cc))))))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $hour)))
    (i32.const 0))

  ;; A finished piece (length pl, slope ps, owner po) stored as hour t's n-th (o8 = 8 × 292t, oi =
  ;; 292t), when there is one (po ≥ 0); returns the count after it.
  (func $emit (param $o8 i32) (param $oi i32) (param $n i32) (param $pl f64) (param $ps f64) (param $po i32)
    (result i32)
    (if (i32.lt_s (local.get $po) (i32.const 0)) (then (return (local.get $n))))
    (f64.store offset=4608 (i32.add (local.get $o8) (i32.shl (local.get $n) (i32.const 3))) (local.get $pl))
    (f64.store offset=116736 (i32.add (local.get $o8) (i32.shl (local.get $n) (i32.const 3))) (local.get $ps))
    (i32.store8 offset=228864 (i32.add (local.get $oi) (local.get $n)) (local.get $po))
    (i32.add (local.get $n) (i32.const 1)))

  ;; Hour t's merged pieces (storage.dispatch.ts `merge`): V_{t+1} from its skip on, `span` MWh of
  ;; it (the terminal value: one piece of slope 0), and the reward's pieces (nf8 = 8 × their count,
  ;; `fbase` bytes after fLen/fSlope: 0, or a ring slot's), by decreasing slope; neighbours of one
  ;; owner and one slope become one piece. The last piece is kept in locals (pl, ps, po; po = −1:
  ;; none yet) and stored ($emit) when the next one starts: the same sums as the JS's
  ;; `len[k] += …`, without reading back what was just written. Returns the count.
  (func $merge (param $t i32) (param $nf8 i32) (param $last i32) (param $span f64) (param $fbase i32) (result i32)
    (local $oi i32) (local $o8 i32) (local $n i32) (local $j8 i32) (local $i8 i32) (local $end8 i32)
    (local $cut f64) (local $remaining f64) (local $vl f64) (local $vs f64) (local $haveV i32)
    (local $l f64) (local $drop f64) (local $fs f64) (local $pl f64) (local $ps f64) (local $po i32)
    (local.set $oi (i32.mul (local.get $t) (i32.const 292)))
    (local.set $o8 (i32.shl (local.get $oi) (i32.const 3)))
    (local.set $j8 (local.get $fbase))
    (local.set $nf8 (i32.add (local.get $fbase) (local.get $nf8)))
    ;; V_{t+1}'s first piece: 292 × 8 bytes on.
    (local.set $i8 (i32.add (local.get $o8) (i32.const 2336)))
    (local.set $vl (local.get $span))
    (local.set $po (i32.const -1))
    (if (local.get $last)
      (then
        (local.set $end8 (local.get $i8))
        (local.set $haveV (i32.const 1)))
      (else
        (local.set $end8
          (i32.add (local.get $i8)
            (i32.shl (i32.load offset=4228 (i32.shl (local.get $t) (i32.const 2))) (i32.const 3))))
        (local.set $cut (f64.load offset=3848 (i32.shl (local.get $t) (i32.const 3))))
        (local.set $remaining (local.get $span))))
    (block $out
      (loop $step
        (if (i32.eqz (local.get $haveV))
          (then
            (block $found
              (loop $scan
                (br_if $found (i32.ge_u (local.get $i8) (local.get $end8)))
                (br_if $found (i32.eqz (f64.gt (local.get $remaining) (f64.const 1e-9))))
                (local.set $l (f64.load offset=4608 (local.get $i8)))
                (local.set $i8 (i32.add (local.get $i8) (i32.const 8)))
                (if (f64.gt (local.get $cut) (f64.const 0))
                  (then
                    (local.set $drop (f64.min (local.get $cut) (local.get $l)))
                    (local.set $cut (f64.sub (local.get $cut) (local.get $drop)))
                    (local.set $l (f64.sub (local.get $l) (local.get $drop)))
                    (br_if $scan (f64.le (local.get $l) (f64.const 1e-9)))))
                (if (f64.gt (local.get $l) (local.get $remaining))
                  (then (local.set $l (local.get $remaining))))
                (local.set $remaining (f64.sub (local.get $remaining) (local.get $l)))
                (local.set $vl (local.get $l))
                ;; slope[i − 1]: SLOPE − 8 = 116728.
                (local.set $vs (f64.load offset=116728 (local.get $i8)))
                (local.set $haveV (i32.const 1))))))
        ;; The hour's pieces steeper than V's current one (V's first on a tie); all once V is used up.
        (block $fdone
          (loop $fl
            (br_if $fdone (i32.ge_u (local.get $j8) (local.get $nf8)))
            (local.set $fs (f64.load offset=4464 (local.get $j8)))
            (if (local.get $haveV)
              (then (br_if $fdone (i32.eqz (f64.gt (local.get $fs) (local.get $vs))))))
            (if (i32.and (i32.eqz (local.get $po)) (f64.eq (local.get $ps) (local.get $fs)))
              (then (local.set $pl (f64.add (local.get $pl) (f64.load offset=4416 (local.get $j8)))))
              (else
                (local.set $n (call $emit (local.get $o8) (local.get $oi) (local.get $n) (local.get $pl) (local.get $ps) (local.get $po)))
                (local.set $pl (f64.load offset=4416 (local.get $j8)))
                (local.set $ps (local.get $fs))
                (local.set $po (i32.const 0))))
            (local.set $j8 (i32.add (local.get $j8) (i32.const 8)))
            (br $fl)))
        (br_if $out (i32.eqz (local.get $haveV)))
        (if (i32.and (i32.eq (local.get $po) (i32.const 1)) (f64.eq (local.get $ps) (local.get $vs)))
          (then (local.set $pl (f64.add (local.get $pl) (local.get $vl))))
          (else
            (local.set $n (call $emit (local.get $o8) (local.get $oi) (local.get $n) (local.get $pl) (local.get $ps) (local.get $po)))
            (local.set $pl (local.get $vl))
            (local.set $ps (local.get $vs))
            (local.set $po (i32.const 1))))
        (local.set $haveV (i32.const 0))
        (br $step)))
    (local.set $n (call $emit (local.get $o8) (local.get $oi) (local.get $n) (local.get $pl) (local.get $ps) (local.get $po)))
    (local.get $n))

  ;; The backward pass without a load (`backward` with `rewardPieces`, no multipliers). t8 = 8t;
  ;; hour t's reward goes to its ring slot (b8: the slot's offset from fLen, n8 = b8 + 8 × the pieces
  ;; so far); hours before `first` have theirs already (the previous horizon's second day).
  (func $backward (param $hours i32) (param $power f64) (param $span f64) (param $etaIn f64) (param $etaOut f64)
    (param $cc f64) (param $dc f64) (param $first i32)
    (local $t i32) (local $t8 i32) (local $n8 i32) (local $p f64) (local $free f64) (local $priced f64)
    (local $pricedCost f64) (local $pricedFirst i32) (local $a1 f64) (local $a2 f64) (local $charging f64)
    (local $l f64) (local $margin f64) (local $y f64) (local $b8 i32)
    (local.set $t (i32.sub (local.get $hours) (i32.const 1)))
    (block $done
      (loop $hour
        (br_if $done (i32.lt_s (local.get $t) (i32.const 0)))
        (local.set $t8 (i32.shl (local.get $t) (i32.const 3)))
        (local.set $b8 (i32.add (local.get $t) (global.get $ring)))
        (if (i32.ge_s (local.get $b8) (i32.const 48)) (then (local.set $b8 (i32.sub (local.get $b8) (i32.const 48)))))
        (local.set $b8 (i32.add (i32.const 238464) (i32.mul (local.get $b8) (i32.const 112))))
        (if (i32.ge_s (local.get $t) (local.get $first))
          (then
            (local.set $p (f64.load offset=0 (local.get $t8)))
            (local.set $free (f64.min (local.get $power) (f64.load offset=384 (local.get $t8))))
            (local.set $priced
              (f64.min (f64.sub (local.get $power) (local.get $free)) (f64.load offset=768 (local.get $t8))))
            (local.set $n8 (local.get $b8))
            (local.set $pricedCost (f64.add (local.get $p) (local.get $cc)))
            (local.set $pricedFirst (f64.ge (local.get $pricedCost) (local.get $cc)))
            (local.set $a1 (select (local.get $priced) (local.get $free) (local.get $pricedFirst)))
            (local.set $a2 (select (local.get $free) (local.get $priced) (local.get $pricedFirst)))
            (local.set $charging (f64.const 0))
            (if (f64.gt (local.get $a1) (f64.const 1e-9))
              (then
                (local.set $l (f64.mul (local.get $a1) (local.get $etaIn)))
                (f64.store offset=4416 (local.get $n8) (local.get $l))
                (f64.store offset=4464 (local.get $n8)
                  (f64.div (select (local.get $pricedCost) (local.get $cc) (local.get $pricedFirst)) (local.get $etaIn)))
                (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))
                (local.set $charging (f64.add (local.get $charging) (local.get $l)))))
            (if (f64.gt (local.get $a2) (f64.const 1e-9))
              (then
                (local.set $l (f64.mul (local.get $a2) (local.get $etaIn)))
                (f64.store offset=4416 (local.get $n8) (local.get $l))
                (f64.store offset=4464 (local.get $n8)
                  (f64.div (select (local.get $cc) (local.get $pricedCost) (local.get $pricedFirst)) (local.get $etaIn)))
                (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))
                (local.set $charging (f64.add (local.get $charging) (local.get $l)))))
            ;; margin = p − dischargeCost − 0 (no multiplier): the − 0 changes no value.
            (local.set $margin (f64.sub (local.get $p) (local.get $dc)))
            (local.set $y (f64.min (local.get $power) (f64.load offset=1152 (local.get $t8))))
            (if (f64.gt (local.get $margin) (f64.const 0))
              (then
                (if (f64.gt (local.get $y) (f64.const 1e-9))
                  (then
                    (f64.store offset=4416 (local.get $n8) (f64.div (local.get $y) (local.get $etaOut)))
                    (f64.store offset=4464 (local.get $n8) (f64.mul (local.get $margin) (local.get $etaOut)))
                    (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))))))
            ;; The slot's charging at fLen + 96, its count at fLen + 104 (4512 and 4520 from b8).
            (f64.store offset=4512 (local.get $b8) (local.get $charging))
            (i32.store offset=4520 (local.get $b8) (i32.sub (local.get $n8) (local.get $b8)))))
        (f64.store offset=3840 (local.get $t8) (f64.load offset=4512 (local.get $b8)))
        (i32.store offset=4224 (i32.shl (local.get $t) (i32.const 2))
          (call $merge (local.get $t) (i32.load offset=4520 (local.get $b8))
            (i32.eq (local.get $t) (i32.sub (local.get $hours) (i32.const 1))) (local.get $span) (local.get $b8)))
        (local.set $t (i32.sub (local.get $t) (i32.const 1)))
        (br $hour))))

  ;; The backward pass with a load (`backwardLoad`, no multipliers). Each hour's reward goes to its ring
  ;; slot, as in $backward (at most five pieces: three charging tiers and two discharges), and hours
  ;; before `first` reuse theirs.
  (func $backwardLoad (param $hours i32) (param $power f64) (param $span f64) (param $eta f64) (param $etaOut f64)
    (param $c f64) (param $dc f64) (param $weight f64) (param $first i32)
    (local $t i32) (local $t8 i32) (local $n8 i32) (local $p f64) (local $excessFirst i32) (local $cost0 f64)
    (local $cost1 f64) (local $left f64) (local $take0 f64) (local $take1 f64) (local $take2 f64)
    (local $charging f64) (local $l f64) (local $y f64) (local $toLoad f64) (local $loadMargin f64)
    (local $toExcess f64) (local $excessMargin f64) (local $free f64) (local $priced f64) (local $b8 i32)
    (local.set $t (i32.sub (local.get $hours) (i32.const 1)))
    (block $done
      (loop $hour
        (br_if $done (i32.lt_s (local.get $t) (i32.const 0)))
        (local.set $t8 (i32.shl (local.get $t) (i32.const 3)))
        (local.set $b8 (i32.add (local.get $t) (global.get $ring)))
        (if (i32.ge_s (local.get $b8) (i32.const 48)) (then (local.set $b8 (i32.sub (local.get $b8) (i32.const 48)))))
        (local.set $b8 (i32.add (i32.const 238464) (i32.mul (local.get $b8) (i32.const 112))))
        (if (i32.ge_s (local.get $t) (local.get $first))
          (then
            (local.set $p (f64.load offset=0 (local.get $t8)))
            (local.set $excessFirst (f64.lt (local.get $p) (f64.const 0)))
            (local.set $cost0 (select (f64.add (local.get $p) (local.get $c)) (local.get $c) (local.get $excessFirst)))
            (local.set $cost1 (select (local.get $c) (f64.add (local.get $p) (local.get $c)) (local.get $excessFirst)))
            (local.set $free (f64.load offset=384 (local.get $t8)))
            (local.set $priced (f64.load offset=768 (local.get $t8)))
            (local.set $left (local.get $power))
            (local.set $take0
              (f64.min (local.get $left) (select (local.get $priced) (local.get $free) (local.get $excessFirst))))
            (local.set $left (f64.sub (local.get $left) (local.get $take0)))
            (local.set $take1
              (f64.min (local.get $left) (select (local.get $free) (local.get $priced) (local.get $excessFirst))))
            (local.set $left (f64.sub (local.get $left) (local.get $take1)))
            (local.set $take2 (f64.min (local.get $left) (f64.load offset=2304 (local.get $t8))))
            (local.set $n8 (local.get $b8))
            (local.set $charging (f64.const 0))
            (if (f64.gt (local.get $take2) (f64.const 1e-9))
              (then
                (local.set $l (f64.mul (local.get $take2) (local.get $eta)))
                (f64.store offset=4416 (local.get $n8) (local.get $l))
                (f64.store offset=4464 (local.get $n8)
                  (f64.div (f64.add (f64.load offset=2688 (local.get $t8)) (local.get $c)) (local.get $eta)))
                (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))
                (local.set $charging (f64.add (local.get $charging) (local.get $l)))))
            (if (f64.gt (local.get $take1) (f64.const 1e-9))
              (then
                (local.set $l (f64.mul (local.get $take1) (local.get $eta)))
                (f64.store offset=4416 (local.get $n8) (local.get $l))
                (f64.store offset=4464 (local.get $n8) (f64.div (local.get $cost1) (local.get $eta)))
                (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))
                (local.set $charging (f64.add (local.get $charging) (local.get $l)))))
            (if (f64.gt (local.get $take0) (f64.const 1e-9))
              (then
                (local.set $l (f64.mul (local.get $take0) (local.get $eta)))
                (f64.store offset=4416 (local.get $n8) (local.get $l))
                (f64.store offset=4464 (local.get $n8) (f64.div (local.get $cost0) (local.get $eta)))
                (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))
                (local.set $charging (f64.add (local.get $charging) (local.get $l)))))
            (local.set $y (f64.min (local.get $power) (f64.load offset=1152 (local.get $t8))))
            (local.set $toLoad (f64.min (local.get $y) (f64.load offset=1536 (local.get $t8))))
            ;; value + weight − dischargeCost − 0 (no multiplier).
            (local.set $loadMargin
              (f64.sub (f64.add (f64.load offset=1920 (local.get $t8)) (local.get $weight)) (local.get $dc)))
            (if (f64.gt (local.get $loadMargin) (f64.const 0))
              (then
                (if (f64.gt (local.get $toLoad) (f64.const 1e-9))
                  (then
                    (f64.store offset=4416 (local.get $n8) (f64.div (local.get $toLoad) (local.get $etaOut)))
                    (f64.store offset=4464 (local.get $n8) (f64.mul (local.get $loadMargin) (local.get $etaOut)))
                    (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))))))
            (local.set $toExcess (f64.sub (local.get $y) (f64.max (f64.const 0) (local.get $toLoad))))
            (local.set $excessMargin (f64.sub (local.get $p) (local.get $dc)))
            (if (f64.gt (local.get $excessMargin) (f64.const 0))
              (then
                (if (f64.gt (local.get $toExcess) (f64.const 1e-9))
                  (then
                    (f64.store offset=4416 (local.get $n8) (f64.div (local.get $toExcess) (local.get $etaOut)))
                    (f64.store offset=4464 (local.get $n8) (f64.mul (local.get $excessMargin) (local.get $etaOut)))
                    (local.set $n8 (i32.add (local.get $n8) (i32.const 8)))))))
            ;; The slot's charging at fLen + 96, its count at fLen + 104 (4512 and 4520 from b8).
            (f64.store offset=4512 (local.get $b8) (local.get $charging))
            (i32.store offset=4520 (local.get $b8) (i32.sub (local.get $n8) (local.get $b8)))))
        (i32.store offset=4224 (i32.shl (local.get $t) (i32.const 2))
          (call $merge (local.get $t) (i32.load offset=4520 (local.get $b8))
            (i32.eq (local.get $t) (i32.sub (local.get $hours) (i32.const 1))) (local.get $span) (local.get $b8)))
        (f64.store offset=3840 (local.get $t8) (f64.load offset=4512 (local.get $b8)))
        (local.set $t (i32.sub (local.get $t) (i32.const 1)))
        (br $hour))))

  ;; The plan's first `hours` hours from the value functions (`forward`).
  (func $forward (param $hours i32) (param $soc0 f64) (param $socMin f64) (param $etaIn f64) (param $etaOut f64)
    (local $t i32) (local $t8 i32) (local $s f64) (local $w f64) (local $z f64) (local $i i32) (local $end i32)
    (local $step f64) (local $u f64) (local $moves i32)
    (local.set $s (local.get $soc0))
    (block $done
      (loop $hour
        (br_if $done (i32.ge_s (local.get $t) (local.get $hours)))
        (local.set $t8 (i32.shl (local.get $t) (i32.const 3)))
        (local.set $w
          (f64.max (f64.const 0)
            (f64.add (f64.sub (local.get $s) (local.get $socMin)) (f64.load offset=3840 (local.get $t8)))))
        (local.set $z (local.get $socMin))
        ;; Piece indices of hour t: from 292t.
        (local.set $i (i32.mul (local.get $t) (i32.const 292)))
        (local.set $end (i32.add (local.get $i) (i32.load offset=4224 (i32.shl (local.get $t) (i32.const 2)))))
        (block $walked
          (loop $walk
            (br_if $walked (i32.ge_u (local.get $i) (local.get $end)))
            (br_if $walked (i32.eqz (f64.gt (local.get $w) (f64.const 0))))
            (local.set $step (f64.min (local.get $w) (f64.load offset=4608 (i32.shl (local.get $i) (i32.const 3)))))
            (if (i32.load8_u offset=228864 (local.get $i))
              (then (local.set $z (f64.add (local.get $z) (local.get $step)))))
            (local.set $w (f64.sub (local.get $w) (local.get $step)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $walk)))
        (local.set $u (f64.sub (local.get $z) (local.get $s)))
        (f64.store offset=3072 (local.get $t8)
          (select (f64.div (local.get $u) (local.get $etaIn)) (f64.const 0) (f64.gt (local.get $u) (f64.const 1e-9))))
        (f64.store offset=3456 (local.get $t8)
          (select (f64.mul (f64.neg (local.get $u)) (local.get $etaOut)) (f64.const 0)
            (f64.lt (local.get $u) (f64.const -1e-9))))
        (local.set $moves
          (i32.or (f64.gt (local.get $u) (f64.const 1e-9)) (f64.lt (local.get $u) (f64.const -1e-9))))
        (local.set $s (select (local.get $z) (local.get $s) (local.get $moves)))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $hour))))

;; The rolling horizon's next day: each input's second day (hours 24–47) moved down to its first
  ;; (`copyWithin(0, 24, 48)` on the eight arrays price … gridPrice, 192 bytes each, and delivered,
  ;; serve and surplus).
  (func (export "shift")
    (local $a i32)
    (block $done
      (loop $array
        (br_if $done (i32.ge_u (local.get $a) (i32.const 3072)))
        (memory.copy (local.get $a) (i32.add (local.get $a) (i32.const 192)) (i32.const 192))
        (local.set $a (i32.add (local.get $a) (i32.const 384)))
        (br $array)))
    (memory.copy (i32.const 248832) (i32.const 249024) (i32.const 192))
    (memory.copy (i32.const 249728) (i32.const 249920) (i32.const 192))
    (memory.copy (i32.const 250112) (i32.const 250304) (i32.const 192)))

  ;; A committed day (storage.ts `commitDay` without reserves): the plan's first 24 hours clipped to
  ;; the power, to what the hour may charge and to the SOC bounds after standing loss, in the same
  ;; operations and order as the JavaScript. What an hour may charge and where it came from are the
  ;; strategy's (storage.strategies.ts `chargeable`, `sources`): a market's (`load` 0; free + priced:
  ;; the limit's surplus and the sale or the grid), or the load's (`load` 1; free + priced + grid +
  ;; the output that serves the load). Reads the horizon (price, free, priced, room, delivered; with a
  ;; load grid, serve and surplus too) and the plan; writes hours `from` … `from` + 23 of the run's
  ;; five 25-year series, each turn of the SOC's direction as its depth of discharge (% of `capacity`,
  ;; in order) from 249472, and the SOC and direction at the day's end at 249664 (f64) and 249672
  ;; (i32). Returns the count of turns (the caller's rainflow count takes them in order).
  (func (export "commit") (param $from i32) (param $keep f64) (param $capacity f64) (param $power f64)
    (param $socMin f64) (param $socMax f64) (param $etaIn f64) (param $etaOut f64) (param $soc f64)
    (param $turned i32) (param $load i32) (result i32)
    (local $t8 i32) (local $kept f64) (local $x f64) (local $y f64) (local $direction i32) (local $turns i32)
    (local $fromPlantOrGrid f64) (local $i8 i32) (local $chargeable f64) (local $surplus f64) (local $excess f64)
    (local.set $i8 (i32.shl (local.get $from) (i32.const 3)))
    (block $done
      (loop $hour
        (br_if $done (i32.ge_u (local.get $t8) (i32.const 192)))
        (local.set $kept (f64.mul (local.get $soc) (local.get $keep)))
        (local.set $x (f64.load offset=3072 (local.get $t8)))
        (local.set $y (f64.load offset=3456 (local.get $t8)))
        (if (f64.gt (local.get $x) (f64.const 0))
          (then
            (local.set $chargeable (f64.add (f64.load offset=384 (local.get $t8)) (f64.load offset=768 (local.get $t8))))
            (if (local.get $load)
              (then
                (local.set $chargeable
                  (f64.add (f64.add (local.get $chargeable) (f64.load offset=2304 (local.get $t8)))
                    (f64.load offset=249728 (local.get $t8))))))
            (local.set $x
              (f64.max (f64.const 0)
                (f64.min
                  (f64.min (local.get $x) (f64.min (local.get $power) (local.get $chargeable)))
                  (f64.div (f64.sub (local.get $socMax) (local.get $kept)) (local.get $etaIn)))))))
        (if (f64.gt (local.get $y) (f64.const 0))
          (then
            (local.set $y
              (f64.max (f64.const 0)
                (f64.min
                  (f64.min (f64.min (local.get $y) (local.get $power)) (f64.load offset=1152 (local.get $t8)))
                  (f64.mul (f64.sub (local.get $kept) (local.get $socMin)) (local.get $etaOut)))))))
        (local.set $direction
          (select (i32.const 1)
            (select (i32.const -1) (i32.const 0) (f64.gt (local.get $y) (f64.const 0)))
            (f64.gt (local.get $x) (f64.const 0))))
        (if (i32.and
              (i32.and (i32.ne (local.get $direction) (i32.const 0)) (i32.ne (local.get $turned) (i32.const 0)))
              (i32.and (i32.ne (local.get $direction) (local.get $turned))
                (f64.gt (local.get $capacity) (f64.const 0))))
          (then
            (f64.store offset=249472 (i32.shl (local.get $turns) (i32.const 3))
              (f64.mul (f64.const 100)
                (f64.sub (f64.const 1) (f64.div (local.get $soc) (local.get $capacity)))))
            (local.set $turns (i32.add (local.get $turns) (i32.const 1)))))
        (if (i32.ne (local.get $direction) (i32.const 0)) (then (local.set $turned (local.get $direction))))
        (local.set $soc
          (f64.sub (f64.add (local.get $kept) (f64.mul (local.get $etaIn) (local.get $x)))
            (f64.div (local.get $y) (local.get $etaOut))))
        (f64.store offset=262144 (local.get $i8) (local.get $x))
        (f64.store offset=2014144 (local.get $i8) (local.get $y))
        (f64.store offset=3766144 (local.get $i8) (local.get $soc))
        (if (f64.gt (local.get $x) (f64.const 0))
          (then
            (if (local.get $load)
              (then
                ;; The limit's surplus, the plant's excess over the load, the grid, then the plant's served output.
                (local.set $surplus (f64.load offset=250112 (local.get $t8)))
                (local.set $excess
                  (f64.sub (f64.load offset=248832 (local.get $t8)) (f64.load offset=249728 (local.get $t8))))
                (f64.store offset=5518144 (local.get $i8)
                  (select
                    (f64.min (local.get $surplus) (f64.max (f64.const 0) (f64.sub (local.get $x) (local.get $excess))))
                    (f64.min (local.get $x) (local.get $surplus))
                    (f64.lt (f64.load offset=0 (local.get $t8)) (f64.const 0))))
                (f64.store offset=7270144 (local.get $i8)
                  (f64.min (f64.load offset=2304 (local.get $t8))
                    (f64.max (f64.const 0)
                      (f64.sub (local.get $x) (f64.add (local.get $surplus) (local.get $excess)))))))
              (else
                ;; The cheaper source first: curtailed energy (free), unless the price is negative.
                (local.set $fromPlantOrGrid
                  (select
                    (f64.min (local.get $x) (f64.load offset=768 (local.get $t8)))
                    (f64.max (f64.const 0) (f64.sub (local.get $x) (f64.load offset=384 (local.get $t8))))
                    (f64.lt (f64.load offset=0 (local.get $t8)) (f64.const 0))))
                (f64.store offset=5518144 (local.get $i8) (f64.sub (local.get $x) (local.get $fromPlantOrGrid)))
                (f64.store offset=7270144 (local.get $i8)
                  (f64.max (f64.const 0)
                    (f64.sub (local.get $fromPlantOrGrid) (f64.load offset=248832 (local.get $t8))))))))
          (else
            (f64.store offset=5518144 (local.get $i8) (f64.const 0))
            (f64.store offset=7270144 (local.get $i8) (f64.const 0))))
        (local.set $t8 (i32.add (local.get $t8) (i32.const 8)))
        (local.set $i8 (i32.add (local.get $i8) (i32.const 8)))
        (br $hour)))
    (f64.store offset=249664 (i32.const 0) (local.get $soc))
    (i32.store offset=249672 (i32.const 0) (local.get $turned))
    (local.get $turns))

    ;; HorizonSolver.solve(b, h, soc0, out, false, planned) without a daily limit: the idle shortcut
  ;; (no load, an empty battery, nothing worth doing: every hour 0), else backward then forward.
  ;; Returns how many of the plan's hours it wrote (the later ones are left as they were).
  ;; `continued` 1: the horizon's first 24 hours are the last call's second day, moved down.
  (func (export "solve") (param $hours i32) (param $planned i32) (param $load i32) (param $soc0 f64)
    (param $power f64) (param $socMin f64) (param $socMax f64) (param $etaIn f64) (param $etaOut f64)
    (param $cc f64) (param $dc f64) (param $weight f64) (param $continued i32) (result i32)
    (local $t8 i32) (local $span f64) (local $n i32) (local $first i32)
    (if (i32.eqz (local.get $load))
      (then
        (if (f64.le (local.get $soc0) (f64.add (local.get $socMin) (f64.const 1e-9)))
          (then
            (if (i32.eqz
                  (call $worthwhile (local.get $hours) (local.get $etaIn) (local.get $etaOut) (local.get $cc)
                    (local.get $dc)))
              (then
                (block $zeroed
                  (loop $zero
                    (br_if $zeroed (i32.ge_s (local.get $t8) (i32.shl (local.get $hours) (i32.const 3))))
                    (f64.store offset=3072 (local.get $t8) (f64.const 0))
                    (f64.store offset=3456 (local.get $t8) (f64.const 0))
                    (local.set $t8 (i32.add (local.get $t8) (i32.const 8)))
                    (br $zero)))
                (global.set $kept (i32.const 0))
                (return (local.get $hours))))))))
    (local.set $span (f64.sub (local.get $socMax) (local.get $socMin)))
    ;; The last call's second day, moved down: its hours' pieces and charging come with it (a load's
    ;; only at the same serving weight, which every hour's reward with a load holds).
    (if (i32.and (i32.and (local.get $continued) (global.get $kept))
          (i32.and
            (i32.and
              (i32.and (f64.eq (local.get $power) (global.get $keptPower)) (f64.eq (local.get $etaIn) (global.get $keptEtaIn)))
              (i32.and (i32.and (f64.eq (local.get $etaOut) (global.get $keptEtaOut)) (f64.eq (local.get $cc) (global.get $keptCc)))
                (f64.eq (local.get $dc) (global.get $keptDc))))
            (i32.and (i32.eq (local.get $load) (global.get $keptLoad))
              (i32.or (i32.eqz (local.get $load)) (f64.eq (local.get $weight) (global.get $keptWeight))))))
      (then
        (global.set $ring (i32.rem_u (i32.add (global.get $ring) (i32.const 24)) (i32.const 48)))
        (local.set $first (i32.const 24))))
    (if (local.get $load)
      (then
        (call $backwardLoad (local.get $hours) (local.get $power) (local.get $span) (local.get $etaIn)
          (local.get $etaOut) (local.get $cc) (local.get $dc) (local.get $weight) (local.get $first)))
      (else
        (call $backward (local.get $hours) (local.get $power) (local.get $span) (local.get $etaIn)
          (local.get $etaOut) (local.get $cc) (local.get $dc) (local.get $first))))
    (global.set $kept (i32.eq (local.get $hours) (i32.const 48)))
    (global.set $keptLoad (local.get $load))
    (global.set $keptWeight (local.get $weight))
    (global.set $keptPower (local.get $power))
    (global.set $keptEtaIn (local.get $etaIn))
    (global.set $keptEtaOut (local.get $etaOut))
    (global.set $keptCc (local.get $cc))
    (global.set $keptDc (local.get $dc))
    (local.set $n (select (local.get $hours) (local.get $planned) (i32.lt_s (local.get $hours) (local.get $planned))))
    (call $forward (local.get $n) (local.get $soc0) (local.get $socMin) (local.get $etaIn) (local.get $etaOut))
    (local.get $n))
)
