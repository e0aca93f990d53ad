; resolve.s -- gravity, groups, popping, scoring, nuisance

; ---------------------------------------------------------------- gravity
ps_grav:
    dec PTIMER,x
    beq :+
    rts
:
    lda #GRAV_FRAMES
    sta PTIMER,x
    jsr gravity_step
    bcs :+
    lda #PS_CHECK
    sta PST,x
    rts
:
    lda #1
    FIELD_CHANGED
    rts

; one row of gravity for the whole field; C=1 if anything moved
gravity_step:
    lda #0
    sta tmp0
    ldy #$CC+CELL           ; row 12, column 6 (code bytes; walls never move: the byte below is a wall too)
@l:
    lda (ptr),y
    CMP_EMPTY
    beq @next
    sta tmp1
    tya
    clc
    adc #16
    tay
    lda (ptr),y
    CMP_EMPTY
    bne @back
    lda tmp1
    sta (ptr),y
    tya
    sec
    sbc #16
    tay
    lda #EMPTY
    sta (ptr),y
    lda #1
    sta tmp0
    jmp @next
@back:
    tya
    sec
    sbc #16
    tay
@next:
    dey
    dey
    cpy #<(CELL-2)          ; offsets $CD, $CB, ..., $01 (row 0), then stop (one less each with CELL = 0)
    bne @l
    lda tmp0
    cmp #1
    rts

; ---------------------------------------------------------------- group check
ps_check:
    lda CHECKED
    beq :+
    rts                     ; the other player searched this frame: wait one frame
:
    inc CHECKED
    jsr find_groups
    lda popcnt
    beq @nopop
    ; a chain step
    inc CHAIN,x
    jsr score_step
    lda CHAIN,x
    cmp #2
    bcc :+
    sta STATUS,x
    lda #90
    sta STATT,x
:
    lda #PS_POP
    sta PST,x
    lda #POP_FRAMES
    sta PTIMER,x
    rts
@nopop:
    ; chain over
    lda CHAIN,x
    beq @nochain
    jsr send_nuisance
    lda #0
    sta CHAIN,x
    sta CSC0,x
    sta CSC1,x
    sta CSC2,x
@nochain:
    lda DROPPED,x
    bne @finish
    lda #1
    sta DROPPED,x
    txa
    asl a
    tay
    lda PEND,y
    ora PEND+1,y
    beq @finish
    jsr drop_nuisance
    lda #1
    FIELD_CHANGED
    lda #PS_GRAV
    sta PST,x
    lda #GRAV_FRAMES
    sta PTIMER,x
    rts
@finish:
    ; spawn cell (3, 1) = offset $17; a pair spawning sideways or down also needs its child's cell
    ldy #SPAWN_OFF
    lda (ptr),y
    CMP_EMPTY
.if SPAWN_DIR <> 2
    bne @dead
    ldy #SPAWN_COFF
    lda (ptr),y
    CMP_EMPTY
.endif
    beq @alive
@dead:
    lda #PS_DEAD
    sta PST,x
    lda #$FF
    sta SDELAY,x
    rts
@alive:
    lda #PS_WAIT
    sta PST,x
    lda #SPAWN_DELAY
    sta SDELAY,x
    rts

ps_pop:
    dec PTIMER,x
    beq :+
    rts
:
    ; clear popped cells
    txa
    asl a
    asl a
    asl a
    asl a
    sta tmp12               ; popbits base offset (0 / 16)
    ldx #0
@c:
    stx rc_ci
    txa
    lsr a
    lsr a
    lsr a
    clc
    adc tmp12
    tay
    txa
    and #7
    tax
    lda POPBITS,y
    and bitmask,x
    beq @n
    ldx rc_ci
    ldy ci_off,x
    lda #EMPTY
    sta (ptr),y
@n:
    ldx rc_ci
    inx
    cpx #78
    bne @c
    ldx player
    ; clear popbits
    ldy tmp12
    lda #0
    ldx #10
:
    sta POPBITS,y
    iny
    dex
    bne :-
    ldx player
    lda #1
    FIELD_CHANGED
    lda #PS_GRAV
    sta PST,x
    lda #GRAV_FRAMES
    sta PTIMER,x
    rts

bitmask:
    .byte $01,$02,$04,$08,$10,$20,$40,$80

; try the flood neighbour at offset A (already known to be inside rows 1..13)
.macro FLOOD_TRY
    .local no
    tay
    lda (ptr),y
    CODE_ONLY
    cmp curcol
    bne no
    tya
    lsr a
    tax
    lda MARK,x
    bne no
    inc MARK,x
    tya
    ldx count
    sta GL,x
    inc count
no:
.endmacro

; find all groups of 4+ in rows 1..13 of player x's field.
; Sets popcnt (coloured puyos popping), gbonus, colmask, and POPBITS.
find_groups:
    txa
    asl a
    asl a
    asl a
    asl a
    sta tmp12               ; POPBITS base of this player
    lda #0
    sta popcnt
    sta gbonus
    sta colmask
    ldy #111
:
    sta MARK,y
    dey
    bpl :-
.if CELL = 0
    ; the walls' first byte is 00, which may be a colour or nuisance code: mark the walls visited
    lda #1
    ldy #104
:
    sta MARK,y
    sta MARK+7,y
    tya
    sec
    sbc #8
    tay
    lda #1
    bcs :-
.endif
    ldy #$12+CELL           ; row 1, column 1
fg_cell:
    sty tmp14               ; scan offset
    lda (ptr),y
    CODE_ONLY
    sec
    sbc #COL1
    cmp #6
    bcc :+
    jmp fg_skip
:
    tya
    lsr a
    tax
    lda MARK,x
    beq :+
    jmp fg_skip
:
    ; flood fill from y
    lda #1
    sta MARK,x
    lda (ptr),y
    CODE_ONLY
    sta curcol
    sty GL
    lda #0
    sta head
    lda #1
    sta count
fg_flood:
    ldx head
    cpx count
    bcc :+
    jmp fg_fdone
:
    inc head
    lda GL,x
    sta tmp15               ; current offset
    ; left (the wall stops it)
    sec
    sbc #2
    FLOOD_TRY
    ; right
    lda tmp15
    clc
    adc #2
    FLOOD_TRY
    ; up (row 0 never takes part)
    lda tmp15
    sec
    sbc #16
    cmp #$10
    bcc fg_noup
    FLOOD_TRY
fg_noup:
    ; down
    lda tmp15
    clc
    adc #16
    cmp #$E0
    bcs fg_nodown
    FLOOD_TRY
fg_nodown:
    jmp fg_flood
fg_fdone:
    lda count
    cmp #4
    bcc fg_skip
    ; a group
    clc
    adc popcnt
    sta popcnt
    ldy count
    cpy #11
    bcc :+
    ldy #11
:
    lda group_bonus,y
    clc
    adc gbonus
    sta gbonus
    lda curcol
    sec
    sbc #COL1
    tay
    lda bitmask,y
    ora colmask
    sta colmask
    ldy #0
:
    sty tmp13
    lda GL,y
    jsr pop_cell
    ldy tmp13
    iny
    cpy count
    bne :-
fg_skip:
    ldy tmp14
    iny
    iny
    tya
    and #$0F
    cmp #$0E+CELL           ; right wall -> next row column 1
    bne :+
    tya
    clc
    adc #4
    tay
:
    cpy #$E0
    bcs :+
    jmp fg_cell
:
    ldx player
    lda popcnt
    bne :+
    rts
:
    rts

; cell at offset A pops: mark it, set its pop bit, and pop adjacent nuisance (rows 1..13)
pop_cell:
    sta tmp1
    jsr set_pop
    lda tmp1
    sec
    sbc #2
    jsr nuis_try
    lda tmp1
    clc
    adc #2
    jsr nuis_try
    lda tmp1
    sec
    sbc #16
    jsr nuis_try
    lda tmp1
    clc
    adc #16
    jmp nuis_try

; offset A pops: MARK = 2 and its bit in POPBITS (base tmp12)
set_pop:
    lsr a
    tax
    lda #2
    sta MARK,x
    lda half2ci,x
    tax
    lsr a
    lsr a
    lsr a
    clc
    adc tmp12
    tay
    txa
    and #7
    tax
    lda bitmask,x
    ora POPBITS,y
    sta POPBITS,y
    rts

; (offset >> 1) -> cell index, $FF outside rows 1..13 / columns 1..6
half2ci:
    .repeat 112, H
    .if (H / 8) >= 1 && (H / 8) <= 13 && (H .mod 8) >= 1 && (H .mod 8) <= 6
    .byte (H / 8 - 1) * 6 + (H .mod 8) - 1
    .else
    .byte $FF
    .endif
    .endrepeat

; nuisance neighbour at offset A
nuis_try:
    cmp #$10
    bcc @no
    cmp #$E0
    bcs @no
    tay
    lda (ptr),y
    cmp #NUIS
    bne @no
    tya
    lsr a
    tax
    lda MARK,x
    bne @no
    tya
    jmp set_pop
@no:
    rts

group_bonus:
    .byte 0,0,0,0, 0,2,3,4, 5,6,7,10

; ---------------------------------------------------------------- score
; score += popcnt * clamp(chain power + colour bonus + group bonus, 1, 999)
score_step:
    ldy CHAIN,x
    cpy #9
    bcc :+
    ldy #9
:
    lda chain_pow_lo,y
    sta mul0
    lda chain_pow_hi,y
    sta mul1
    ; distinct colours
    lda colmask
    ldy #0
:
    lsr a
    bcc :+
    iny
:
    cmp #0
    bne :--
    lda colour_bonus,y
    clc
    adc gbonus
    bcc :+
    inc mul1
:
    clc
    adc mul0
    sta mul0
    bcc :+
    inc mul1
:
    ; clamp 1..999
    lda mul1
    cmp #>999
    bcc @lo
    bne @cap
    lda mul0
    cmp #<999+1
    bcc @ok
@cap:
    lda #<999
    sta mul0
    lda #>999
    sta mul1
    jmp @ok
@lo:
    lda mul1
    ora mul0
    bne @ok
    lda #1
    sta mul0
@ok:
    ; prod = popcnt * mul (8 x 16)
    lda #0
    sta prod0
    sta prod1
    sta prod2
    lda popcnt
    sta tmp0
    ldy #8
@m:
    asl prod0
    rol prod1
    rol prod2
    asl tmp0
    bcc :+
    lda prod0
    clc
    adc mul0
    sta prod0
    lda prod1
    adc mul1
    sta prod1
    bcc :+
    inc prod2
:
    dey
    bne @m
    ; chain score
    lda CSC0,x
    clc
    adc prod0
    sta CSC0,x
    lda CSC1,x
    adc prod1
    sta CSC1,x
    lda CSC2,x
    adc prod2
    sta CSC2,x
    ; score (index 3*p), capped at 9999999
    txa
    sta tmp0
    asl a
    adc tmp0
    tay
    lda SCORE,y
    clc
    adc prod0
    sta SCORE,y
    lda SCORE+1,y
    adc prod1
    sta SCORE+1,y
    lda SCORE+2,y
    adc prod2
    sta SCORE+2,y
    ; cap: 9999999 = $98967F
    cmp #$98
    bcc @done
    bne @capsc
    lda SCORE+1,y
    cmp #$96
    bcc @done
    bne @capsc
    lda SCORE,y
    cmp #$80
    bcc @done
@capsc:
    lda #$7F
    sta SCORE,y
    lda #$96
    sta SCORE+1,y
    lda #$98
    sta SCORE+2,y
@done:
    rts

chain_pow_lo:
    .byte <0, <0, <8, <16, <32, <64, <128, <256, <512, <999
chain_pow_hi:
    .byte >0, >0, >8, >16, >32, >64, >128, >256, >512, >999
colour_bonus:
    .byte 0, 0, 3, 6, 12, 24, 48

; ---------------------------------------------------------------- nuisance
; at the end of a chain (2P): (NREM + chain score) / NRATE nuisance, at most NCAP (none when 0), to the
; opponent; the remainder is kept, any excess over the cap is lost
send_nuisance:
    lda MODE
    bne :+
    rts
:
    lda CSC0,x
    clc
    adc NREM,x
    sta prod0
    lda CSC1,x
    adc #0
    sta prod1
    lda CSC2,x
    adc #0
    sta prod2
    ; 24-bit / NRATE (1..128): quotient in prod, remainder in tmp0
    lda #0
    sta tmp0
    ldy #24
@d:
    asl prod0
    rol prod1
    rol prod2
    rol tmp0
    lda tmp0
    cmp NRATE
    bcc :+
    sbc NRATE
    sta tmp0
    inc prod0
:
    dey
    bne @d
    lda tmp0
    sta NREM,x
    ; min(q, NCAP) unless NCAP = 0
    lda NCAP
    beq @add
    lda prod2
    ora prod1
    bne @cap
    lda prod0
    cmp NCAP
    bcc @add
    beq @add
@cap:
    lda NCAP
    sta prod0
    lda #0
    sta prod1
    sta prod2
@add:
    ; opponent's pending (index 2*(1-p)) += q, saturating at $FFFF
    txa
    eor #1
    asl a
    tay
    lda PEND,y
    clc
    adc prod0
    sta PEND,y
    lda PEND+1,y
    adc prod1
    sta PEND+1,y
    bcs @sat
    lda prod2
    beq @done
@sat:
    lda #$FF
    sta PEND,y
    sta PEND+1,y
@done:
    rts

; drop min(pending, NDROP) nuisance on player x: full rows of 6, the rest in distinct random columns; what
; finds its column full vanishes (NOVER = 0) or goes back to the pending count (NOVER = 1)
drop_nuisance:
    txa
    asl a
    tay
    lda PEND+1,y
    bne @most
    lda PEND,y
    cmp NDROP
    bcc :+
@most:
    lda NDROP
:
    sta tmp12               ; n
    lda PEND,y
    sec
    sbc tmp12
    sta PEND,y
    lda PEND+1,y
    sbc #0
    sta PEND+1,y
    ; rows = n / 6, rem = n % 6
    lda tmp12
    ldy #0
:
    cmp #6
    bcc :+
    sbc #6
    iny
    bne :-
:
    sta tmp13               ; remainder
    tya
    ldy #6
:
    sta NCOUNT,y
    dey
    bne :-
    ; distinct random columns for the remainder
@pick:
    lda tmp13
    beq @place
    txa
    clc
    adc #4
    tax                     ; nuisance generator state
:
    jsr rng_next
    and #7
    cmp #6
    bcs :-
    tay
    iny                     ; column 1..6
    ldx player
    lda NCOUNT,y
    ; already chosen if above the row count
    sta tmp14
    txa
    pha
    lda tmp12
    ldx #0
:
    cmp #6
    bcc :+
    sbc #6
    inx
    bne :-
:
    stx tmp15               ; rows
    pla
    tax
    lda tmp14
    cmp tmp15
    bne @pick               ; column taken: draw again
    clc
    adc #1
    sta NCOUNT,y
    dec tmp13
    jmp @pick
@place:
    ldx player
    lda #1
    sta cx
@col:
    ldy cx
    lda NCOUNT,y
    beq @nextcol
    sta tmp13
    ; landing row: lowest empty row scanning down from row 0
@one:
    lda #0
    sta cy
    jsr cell_free
    bcs @full               ; row 0 occupied: the rest vanish or go back
:
    inc cy
    jsr cell_free
    bcc :-
    dec cy
    jsr cell_free           ; Y = offset of landing cell
    lda #NUIS
    sta (ptr),y
    dec tmp13
    bne @one
@nextcol:
    inc cx
    lda cx
    cmp #7
    bne @col
    rts
@full:
    lda NOVER
    beq @nextcol
    lda player
    asl a
    tay
    lda PEND,y
    clc
    adc tmp13
    sta PEND,y
    lda PEND+1,y
    adc #0
    sta PEND+1,y
    jmp @nextcol
