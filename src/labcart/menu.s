; menu.s -- title screen, mode select, game over

; leave play: both players idle, no controllable piece
players_idle:
    ldx #1
@l:
    lda #PS_IDLE
    sta PST,x
    lda #$FF
    sta SDELAY,x
    lda #0
    sta SPAWNED,x
    sta CHAIN,x
    dex
    bpl @l
    lda #0
    sta SPAWNANY
    sta PAUSED
    jmp hide_sprites

enter_title:
    jsr screen_off
    jsr players_idle
    lda #0
    sta GSTATE
    jsr clear_screen
    lda #<title_script
    sta ptr2
    lda #>title_script
    sta ptr2+1
    jsr draw_script
    ; a row of puyos: appearances 1..7 at metatile row 6, cols 4..10
    lda #1
    sta count
@p:
    lda count
    clc
    adc #3
    sta tx
    lda #6
    sta ty
    ldy count
    lda app_pal,y
    jsr attr_set
    lda tx
    asl a
    clc
    adc #$80                ; $2180 = tile row 12
    sta fill_lo
    lda #$21
    sta fill_hi
    lda count
    jsr cell_direct
    inc count
    lda count
    cmp #8
    bne @p
    jsr flush_attr
    jmp screen_on

title_state:
    lda PADNEW
    and #BTN_START
    beq @done
    jsr enter_menu
@done:
    jmp main_end

enter_menu:
    jsr screen_off
    lda #1
    sta GSTATE
    lda #0
    sta CURSOR
    jsr clear_screen
    lda #<menu_script
    sta ptr2
    lda #>menu_script
    sta ptr2+1
    jsr draw_script
    jsr flush_attr
    jmp screen_on

menu_state:
    lda PADNEW
    sta tmp12
    and #BTN_START
    beq @nostart
    jsr start_game
    jmp main_end
@nostart:
    lda tmp12
    and #BTN_DOWN
    beq @nodown
    inc CURSOR
    lda CURSOR
    cmp #MENU_LINES
    bcc @nodown
    lda #0
    sta CURSOR
@nodown:
    lda tmp12
    and #BTN_UP
    beq @noup
    dec CURSOR
    bpl @noup
    lda #MENU_LINES - 1
    sta CURSOR
@noup:
    lda tmp12
    and #BTN_RIGHT
    beq @noright
    lda #1
    jsr menu_change
@noright:
    lda tmp12
    and #BTN_LEFT
    beq @noleft
    lda #$FF
    jsr menu_change
@noleft:
    jsr menu_draw
    jmp main_end

; A = +1 / -1: change the option under the cursor (wrapping)
menu_change:
    sta tmp0
    ldx CURSOR
    bne @notmode
    lda MODESEL
    eor #2
    sta MODESEL
    rts
@notmode:
    dex
    beq @item
    dex
    beq @colors
    ; lines 3..6: the 2P rules, each stepping through its list of values
    lda rule_opt-1,x
    pha
    lda rule_list_lo-1,x
    sta ptr2
    lda rule_list_hi-1,x
    sta ptr2+1
    pla
    tax
    jmp cycle_opt
@item:
    lda ITEMOPT
    clc
    adc tmp0
    bpl :+
    lda #2
:
    cmp #3
    bcc :+
    lda #0
:
    sta ITEMOPT
    rts
@colors:
    lda NCOLORS
    clc
    adc tmp0
    cmp #3
    bcs :+
    lda #6
:
    cmp #7
    bcc :+
    lda #3
:
    sta NCOLORS
    rts

; queue the option values and the cursor: MODE, ITEM, COLORS and the cursor on even frames, the 2P rules
; on odd ones (the VRAM buffer's budget does not hold all seven lines at once)
menu_draw:
    lda FRAMELO
    lsr a
    bcc :+
    jmp rules_draw
:
    ; mode
    lda #$21
    sta fill_hi
    lda #$0F
    sta fill_lo
    lda MODESEL
    beq :+
    lda #<txt_2p
    ldx #>txt_2p
    bne :++
:
    lda #<txt_1p
    ldx #>txt_1p
:
    sta ptr2
    stx ptr2+1
    lda #10
    jsr buf_str
    ; item
    lda #$4F
    sta fill_lo
    lda ITEMOPT
    asl a
    tax
    lda item_txt,x
    sta ptr2
    lda item_txt+1,x
    sta ptr2+1
    lda #10
    jsr buf_str
    ; colours
    lda #$8F
    sta fill_lo
    lda #1
    jsr buf_run
    lda NCOLORS
    ora #$30
    jsr buf_byte
    ; cursor column: rows 8, 10, 12 at col 4
    ldx #0
@c:
    lda cursor_lo,x
    sta fill_lo
    lda cursor_hi,x
    sta fill_hi
    lda #1
    jsr buf_run
    lda #' '
    cpx CURSOR
    bne :+
    lda #'>'
:
    jsr buf_byte
    inx
    cpx #MENU_LINES
    bne @c
    rts

cursor_hi:
    .byte $21, $21, $21, $21, $22, $22, $22
cursor_lo:
    .byte $04, $44, $84, $C4, $04, $44, $84
item_txt:
    .word txt_off, txt_big, txt_carb
.if ITEMS_AT_BOOT = 3
    .word txt_both
txt_both: .byte "BOTH      "
.endif
txt_1p:   .byte "1P ENDLESS"
txt_2p:   .byte "2P        "
txt_off:  .byte "OFF       "
txt_big:  .byte "BIG PUYO  "
txt_carb: .byte "CARBUNCLE "

; the 2P rule lines (3..6): the option byte and its list of values (count, then the values; Right steps
; forward, Left back, wrapping; a value not in the list, from a define, steps to the first)
rule_opt:
    .byte NCAP, NDROP, NRATE, NOVER
rule_list_lo:
    .byte <list_cap, <list_drop, <list_rate, <list_over
rule_list_hi:
    .byte >list_cap, >list_drop, >list_rate, >list_over
list_cap:  .byte 3, 30, 60, 0
list_drop: .byte 5, 30, 6, 12, 18, 24
list_rate: .byte 3, 7, 12, 4
list_over: .byte 2, 0, 1

; step the zero-page option X through the list at ptr2 by tmp0 (+1 / -1)
cycle_opt:
    ldy #0
    lda (ptr2),y
    sta tmp1                ; n
    iny
@find:
    lda (ptr2),y
    cmp 0,x
    beq @found
    cpy tmp1
    beq @first
    iny
    bne @find
@first:
    ldy #1
    bne @store
@found:
    lda tmp0
    bmi @prev
    cpy tmp1
    bne :+
    ldy #0
:
    iny
    bne @store
@prev:
    dey
    bne @store
    ldy tmp1
@store:
    lda (ptr2),y
    sta 0,x
    rts

; queue the 2P rule lines' values
rules_draw:
    ; LIMIT: NONE or the cap
    lda #$21
    sta fill_hi
    lda #$CF
    sta fill_lo
    lda NCAP
    bne :+
    lda #<txt_none
    sta ptr2
    lda #>txt_none
    sta ptr2+1
    lda #4
    jsr buf_str
    jmp @drop
:
    lda #4
    jsr buf_run
    lda NCAP
    jsr buf_dec3
    lda #' '
    jsr buf_byte
@drop:
    lda #$22
    sta fill_hi
    lda #$0F
    sta fill_lo
    lda #3
    jsr buf_run
    lda NDROP
    jsr buf_dec3
    ; POINTS: the rate times ten
    lda #$4F
    sta fill_lo
    lda #4
    jsr buf_run
    lda NRATE
    jsr buf_dec3
    lda #'0'
    jsr buf_byte
    ; EXCESS
    lda #$8F
    sta fill_lo
    lda NOVER
    beq :+
    lda #<txt_requeue
    ldx #>txt_requeue
    bne :++
:
    lda #<txt_vanish
    ldx #>txt_vanish
:
    sta ptr2
    stx ptr2+1
    lda #7
    jmp buf_str

; append A (0..255) as three decimal digits
buf_dec3:
    ldx #'0' - 1
    sec
:
    inx
    sbc #100
    bcs :-
    adc #100
    pha
    txa
    jsr buf_byte
    pla
    ldx #'0' - 1
    sec
:
    inx
    sbc #10
    bcs :-
    adc #10
    pha
    txa
    jsr buf_byte
    pla
    ora #'0'
    jmp buf_byte

txt_none:    .byte "NONE"
txt_vanish:  .byte "VANISH "
txt_requeue: .byte "REQUEUE"

over_state:
    jsr render_play
    lda PADNEW
    and #BTN_START
    beq @done
    jsr enter_title
@done:
    jmp main_end

title_script:
    .byte $20, $C9, "PUYO PUYO LAB", $FF
    .byte $21, $26, "OPEN TEST CARTRIDGE", $FF
    .byte $22, $4A, "PRESS START", $FF
    .byte $22, $C7, "FOR PUYOBOT TESTS", $FF
    .byte $00

menu_script:
    .byte $20, $89, "PUYO PUYO LAB", $FF
    .byte $21, $06, "MODE", $FF
    .byte $21, $46, "ITEM", $FF
    .byte $21, $86, "COLORS", $FF
    .byte $21, $C6, "LIMIT", $FF
    .byte $22, $06, "DROP", $FF
    .byte $22, $46, "POINTS", $FF
    .byte $22, $86, "EXCESS", $FF
    .byte $22, $E4, "UP DOWN    SELECT LINE", $FF
    .byte $23, $24, "LEFT RIGHT CHANGE", $FF
    .byte $23, $64, "START      PLAY", $FF
    .byte $00
