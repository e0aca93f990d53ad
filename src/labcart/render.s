; render.s -- sprites, texts and the cell-diff renderer for the play screen

DIGITS = $07A0          ; 12-byte text scratch ($07A0-$07AB)
OAMIDX = $26            ; zp

render_play:
    jsr build_oam
    ldx #0
    jsr render_texts
    ldx #1
    jsr render_texts
    jmp render_cells

; ---------------------------------------------------------------- sprites
build_oam:
    ldy #0
    lda #$F0
:
    sta OAM,y
    iny
    iny
    iny
    iny
    cpy #128
    bne :-
    ldx #0
    jsr piece_oam
    ldx #1
    jsr piece_oam
    rts

piece_oam:
    lda PST,x
    cmp #PS_ACTIVE
    beq :+
    rts
:
    txa
    asl a
    asl a
    asl a
    asl a
    asl a
    asl a
    sta OAMIDX              ; 0 / 64
    lda PTYPE,x
    beq @pair
    cmp #1
    beq @big
    ; Carbuncle
    lda IPX,x
    sta cx
    lda IPY,x
    sta cy
    lda #9
    jsr app_tiles
    lda #9
    jmp spr_cell
@pair:
    lda IPX,x
    sta cx
    lda IPY,x
    sta cy
    ldy ICURP,x
    lda code2app,y
    jsr app_tiles
    jsr spr_cell
    ldy IORI,x
    lda IPX,x
    clc
    adc ori_dx,y
    sta cx
    lda IPY,x
    clc
    adc ori_dy,y
    sta cy
    ldy ICURC,x
    lda code2app,y
    jsr app_tiles
    jmp spr_cell
@big:
    ldy #0
@bl:
    sty tmp0
    lda IPX,x
    clc
    adc big_dx,y
    sta cx
    lda IPY,x
    clc
    adc big_dy,y
    sta cy
    lda big_t,y
    sta tmp12
    clc
    adc #1
    sta tmp13
    adc #3
    sta tmp14
    adc #1
    sta tmp15
    lda #8
    sta rc_app
    jsr spr_cell
    ldy tmp0
    iny
    cpy #4
    bne @bl
    rts

big_dx: .byte 0, 1, 0, 1
big_dy: .byte $FF, $FF, 0, 0
big_t:  .byte $60, $62, $68, $6A

; one 16x16 sprite cell at grid (cx, cy) for player x, tiles tmp12..15, appearance rc_app
spr_cell:
    lda cy
    beq @hidden
    cmp #14
    bcs @hidden
    asl a
    asl a
    asl a
    asl a
    sec
    sbc #1
    sta tmp1                ; OAM y
    lda cx
    asl a
    asl a
    asl a
    asl a
    cpx #0
    beq :+
    clc
    adc #128
:
    sta tmp7                ; x
    ldy rc_app
    lda app_pal,y
    sta tx                  ; palette
    ldy OAMIDX
    lda tmp1
    sta OAM,y
    sta OAM+4,y
    clc
    adc #8
    sta OAM+8,y
    sta OAM+12,y
    lda tmp12
    sta OAM+1,y
    lda tmp13
    sta OAM+5,y
    lda tmp14
    sta OAM+9,y
    lda tmp15
    sta OAM+13,y
    lda tx
    sta OAM+2,y
    sta OAM+6,y
    sta OAM+10,y
    sta OAM+14,y
    lda tmp7
    sta OAM+3,y
    sta OAM+11,y
    clc
    adc #8
    sta OAM+7,y
    sta OAM+15,y
    tya
    clc
    adc #16
    sta OAMIDX
@hidden:
    rts

; ---------------------------------------------------------------- texts
render_texts:
    stx player
    ; score
    txa
    sta tmp0
    asl a
    adc tmp0
    tay
    lda SCORE,y
    cmp SHSC0,x
    bne @score
    lda SCORE+1,y
    cmp SHSC1,x
    bne @score
    lda SCORE+2,y
    cmp SHSC2,x
    beq @status
@score:
    lda SCORE,y
    sta SHSC0,x
    sta prod0
    lda SCORE+1,y
    sta SHSC1,x
    sta prod1
    lda SCORE+2,y
    sta SHSC2,x
    sta prod2
    jsr to_dec
    lda #'0'
    sta DIGITS+7
    lda #$20
    sta fill_hi
    lda #$26
    cpx #0
    beq :+
    lda #$36
:
    sta fill_lo
    lda #<DIGITS
    sta ptr2
    lda #>DIGITS
    sta ptr2+1
    lda #8
    jsr buf_str
    ldx player
@status:
    lda STATUS,x
    cpx #0
    bne :+
    ldy PAUSED
    beq :+
    lda #$F6
:
    cmp SHSTAT,x
    beq @pend
    sta SHSTAT,x
    jsr status_text
    lda #$23
    sta fill_hi
    lda #$A2
    cpx #0
    beq :+
    lda #$B2
:
    sta fill_lo
    lda #<DIGITS
    sta ptr2
    lda #>DIGITS
    sta ptr2+1
    lda #12
    jsr buf_str
    ldx player
@pend:
    txa
    asl a
    tay
    lda PEND+1,y
    bne @99
    lda PEND,y
    cmp #100
    bcc :+
@99:
    lda #99
:
    cmp SHPEND,x
    beq @done
    sta SHPEND,x
    ldy #'0'
:
    cmp #10
    bcc :+
    sbc #10
    iny
    bne :-
:
    ora #'0'
    sta DIGITS+1
    sty DIGITS
    lda #$22
    sta fill_hi
    lda #$0F
    cpx #0
    beq :+
    lda #$6F
:
    sta fill_lo
    lda #<DIGITS
    sta ptr2
    lda #>DIGITS
    sta ptr2+1
    lda #2
    jsr buf_str
    ldx player
@done:
    rts

; status id A -> 12 chars in DIGITS
status_text:
    pha
    ldy #11
    lda #' '
:
    sta DIGITS,y
    dey
    bpl :-
    pla
    beq @done
    cmp #$F0
    bcs @fixed
    ; chain count
    ldy #'0'
:
    cmp #10
    bcc :+
    sbc #10
    iny
    bne :-
:
    ora #'0'
    sta DIGITS+1
    cpy #'0'
    beq :+
    sty DIGITS
:
    ldy #0
:
    lda txt_chain,y
    sta DIGITS+3,y
    iny
    cpy #6
    bne :-
    rts
@fixed:
    sec
    sbc #$F2
    asl a
    tay
    lda status_ptr,y
    sta ptr2
    lda status_ptr+1,y
    sta ptr2+1
    ldy #0
:
    lda (ptr2),y
    beq @done
    sta DIGITS,y
    iny
    bne :-
@done:
    rts

txt_chain: .byte "CHAIN!"
status_ptr:
    .word txt_gameover, txt_win, txt_lose, txt_draw, txt_pause
txt_gameover: .byte "GAME OVER", 0
txt_win:      .byte "WIN!", 0
txt_lose:     .byte "LOSE", 0
txt_draw:     .byte "DRAW", 0
txt_pause:    .byte "PAUSE", 0

; prod0..2 -> 7 ASCII digits in DIGITS
to_dec:
    ldy #0
@digit:
    lda #'0'
    sta tmp7
@sub:
    lda prod0
    sec
    sbc pow_lo,y
    sta tmp0
    lda prod1
    sbc pow_mid,y
    sta tmp1
    lda prod2
    sbc pow_hi,y
    bcc @next
    sta prod2
    lda tmp1
    sta prod1
    lda tmp0
    sta prod0
    inc tmp7
    bne @sub
@next:
    lda tmp7
    sta DIGITS,y
    iny
    cpy #7
    bne @digit
    rts

pow_lo:  .byte <1000000, <100000, <10000, <1000, <100, <10, <1
pow_mid: .byte >1000000, >100000, >10000, >1000, >100, >10, >1
pow_hi:  .byte ^1000000, ^100000, ^10000, ^1000, ^100, ^10, ^1

; ---------------------------------------------------------------- cells
; one player per frame (frame parity); only while its field may have changed
render_cells:
    lda CHECKED             ; a group search ran this frame: no time left
    beq :+
    rts
:
    lda FRAMELO
    and #1
    tax
    lda DIRTY,x
    bne :+
    lda PST,x
    cmp #PS_POP
    beq :+
    rts
:
    lda #0
    sta DIRTY,x
    jsr cells_player
    ldx #0
    rts

cells_player:
    stx player
    jsr set_field
    lda #0
    cpx #0
    beq :+
    lda #80
:
    sta rc_end              ; shadow base
    lda #0
    sta rc_ci
@loop:
    lda bufpos
    cmp #VBUF_BUDGET
    bcc :+
    ldx player
    lda #1
    sta DIRTY,x             ; out of budget: finish next time
    rts
:
    ldx rc_ci
    cpx #78
    bcs @next_cell
    ldy ci_off,x
    lda (ptr),y
    and #CODE_MASK
    tay
    lda code2app,y
    sta rc_app
    ; popping and blink phase -> hidden
    beq @cmp
    ldy player
    lda PST,y
    cmp #PS_POP
    bne @cmp
    lda PTIMER,y
    and #4
    beq @cmp
    tya
    asl a
    asl a
    asl a
    asl a
    sta tmp0
    txa
    lsr a
    lsr a
    lsr a
    clc
    adc tmp0
    tay
    txa
    and #7
    tax
    lda POPBITS,y
    and bitmask,x
    beq @cmp
    lda #0
    sta rc_app
    jmp @cmp
@next_cell:
    ; 78 = next child (top), 79 = next pivot (bottom)
    lda player
    asl a
    tay
    cpx #78
    beq :+
    lda INEXTP,y
    jmp :++
:
    lda INEXTC,y
:
    and #63
    tay
    lda code2app,y
    sta rc_app
@cmp:
    lda rc_ci
    clc
    adc rc_end
    tay
    lda rc_app
    cmp SHADOW,y
    beq @same
    sta SHADOW,y
    jsr emit_cell
@same:
    inc rc_ci
    lda rc_ci
    cmp #80
    beq :+
    jmp @loop
:
    ldx player
    rts

; queue cell rc_ci of player (appearance rc_app)
emit_cell:
    ldx rc_ci
    cpx #78
    bcs @next
    lda ci_nthi,x
    sta fill_hi
    lda ci_ntlo,x
    ldy player
    beq :+
    clc
    adc #16
:
    sta fill_lo
    lda ci_mtx,x
    ldy player
    beq :+
    clc
    adc #8
:
    sta tx
    lda ci_mty,x
    sta ty
    jmp @draw
@next:
    lda player
    asl a
    sta tmp0
    txa
    sec
    sbc #78
    ora tmp0
    tax                     ; 0..3
    lda next_hi,x
    sta fill_hi
    lda next_lo,x
    sta fill_lo
    lda next_mty,x
    sta ty
    lda #7
    sta tx
@draw:
    lda rc_app
    jsr app_tiles
    lda #2
    jsr buf_run
    lda tmp12
    jsr buf_byte
    lda tmp13
    jsr buf_byte
    lda fill_lo
    clc
    adc #32
    sta fill_lo
    bcc :+
    inc fill_hi
:
    lda #2
    jsr buf_run
    lda tmp14
    jsr buf_byte
    lda tmp15
    jsr buf_byte
    ; attributes
    ldy rc_app
    beq @done
    lda app_pal,y
    sta tmp13
    jsr attr_set
    bcc :+
    jsr buf_attr
:
    lda rc_ci
    cmp #78
    bcc @done
    inc tx                  ; next cells straddle metatile columns 7 and 8
    lda tmp13
    jsr attr_set
    bcc @done
    jsr buf_attr
@done:
    rts

next_hi:  .byte $20, $20, $21, $21
next_lo:  .byte $8F, $CF, $4F, $8F
next_mty: .byte 2, 3, 5, 6

; per cell index ci = 6*(y-1) + (x-1), y = 1..13, x = 1..6
ci_off:
    .repeat 78, I
    .byte 16*(I/6+1) + 2*(I .mod 6 + 1) + CELL
    .endrepeat
ci_ntlo:
    .repeat 78, I
    .byte <($2000 + 64*(I/6+1) + 2*(I .mod 6 + 1))
    .endrepeat
ci_nthi:
    .repeat 78, I
    .byte >($2000 + 64*(I/6+1) + 2*(I .mod 6 + 1))
    .endrepeat
ci_mtx:
    .repeat 78, I
    .byte I .mod 6 + 1
    .endrepeat
ci_mty:
    .repeat 78, I
    .byte I/6 + 1
    .endrepeat
