Disculpe, ¿dónde está la estación de tren?
El tren sale a las 7:45 del andén 3.
¿Cómo llego al museo desde aquí?
Gire a la izquierda en el segundo semáforo.
¿Está ocupado este asiento?
¿Podría decirme a qué distancia está el aeropuerto?
Nuestro vuelo a Madrid se ha retrasado dos horas.
Quisiera un boleto de ida y vuelta a Boston, por favor.
El hotel está a unos 500 metros pasando el puente.
Estamos perdidos. ¿Puede indicarnos en el mapa dónde estamos?
Siga recto hasta llegar a la iglesia y luego gire a la derecha.
¿A qué hora sale el último autobús al centro de la ciudad?
Mi maleta no llegó en el vuelo de Chicago.
No olvides tu pasaporte.
El mostrador de facturación abre tres horas antes de la salida.
Anna y yo vamos a ir por carretera de Lisboa a Oporto el sábado.
¿Hay una gasolinera cerca de aquí?
El taxi al hotel costó 35 dólares.
¿De qué andén sale el tren a Sevilla?
No se puede estacionar aquí después de las 6 p. m.
Nos registramos en la habitación 412, en el cuarto piso.
Se tarda unos 20 minutos en llegar caminando a la playa.
¿Podría llamarme un taxi, por favor?
El museo cierra los lunes.
¿Cuánto cuesta un boleto de ida a Roma?
Tome el metro hasta la tercera parada y bájese en Central Park.
Me voy a quedar cinco noches en un hotel pequeño cerca del casco antiguo.
Nuestro avión aterriza en la Ciudad de México mañana a las 10:15.
¿Necesito visa para visitar Canadá?
Si pierdes el ferri, el siguiente sale a las 16:30 y llega al puerto justo antes de que oscurezca.
¿Cuánto cuesta esta chaqueta?
¿Aceptan tarjetas de crédito?
Estos zapatos tienen un 20% de descuento hasta el domingo.
Solo estoy mirando, gracias.
¿Podría probarme esto en una talla más pequeña?
El total es de $47.50.
¿Dónde están los probadores?
Quisiera devolver esta camisa; me queda demasiado grande.
¿Tiene el recibo?
Necesito sacar 200 euros del cajero automático.
El supermercado abre todos los días de 8 a. m. a 10 p. m.
¿Me puede dar cambio de un billete de 50 dólares?
Este año gastamos demasiado dinero en regalos.
¿Hay algún modelo más barato disponible?
Mi banco cobra una comisión de 3 dólares por cada transferencia.
Sarah se compró una computadora portátil nueva por 899 dólares.
¿Puedo pagar en efectivo?
La tienda no hace reembolsos, solo cambios.
¿Quiere una bolsa para eso?
Estoy ahorrando dinero para comprarme un auto el año que viene.
Los precios han subido mucho desde el verano pasado.
¿Podría envolverlo para regalo, por favor?
Las rebajas empiezan el viernes 27 de noviembre a las 9:00.
Pagué las entradas por internet con mi tarjeta de débito.
¿Cuánto le debo?
Dividimos el gasto de la compra, así que cada uno pagó 32 dólares.
Este reloj es demasiado caro para mí.
¿El precio incluye impuestos?
Tom me prestó 100 libras y le prometí devolvérselas antes de fin de mes.
La tienda de la esquina vende pan fresco, leche y periódicos hasta la medianoche.
Tengo un dolor de cabeza terrible.
Quisiera pedir una cita con el Dr. Patel.
¿Desde cuándo tiene estos síntomas?
Tome dos pastillas cada 8 horas después de las comidas.
Mi hijo tiene fiebre desde el martes.
¿Hay alguna farmacia abierta por la noche cerca de aquí?
¿Es alérgico a algún medicamento?
El médico me dijo que descansara unos días.
Mi cita es el jueves a las 3:30.
No puedo dormir bien por la noche.
Deberías beber más agua y caminar al menos 30 minutos al día.
¿Dónde le duele?
Creo que me he roto la muñeca.
¡Llame a una ambulancia, por favor!
Su presión arterial es de 120 sobre 80.
El dentista lo puede atender mañana por la mañana.
Llevo una semana con dolor de garganta y tos.
¿Necesito receta para este medicamento?
No tome más de 4 pastillas en 24 horas.
Mi abuelo está en el hospital, en la habitación 305.
Me mareo cuando me levanto.
Primero la enfermera le tomará la temperatura.
¿Cada cuánto debo cambiar el vendaje?
Maria va al médico porque le duele la espalda.
La semana pasada me vacuné contra la gripe.
Por favor, complete este formulario y espere hasta que lo llamen por su nombre.
No es nada grave, pero vuelva si el dolor empeora.
Intento comer menos azúcar y dormir ocho horas por noche.
La clínica abre de lunes a viernes, de 9:00 a 17:00.
Después de la operación, tendrá que guardar cama al menos 2 semanas y evitar levantar objetos pesados.
La reunión empieza a las 10:00 en la sala B.
¿Puedes enviarme el informe antes del viernes?
Hoy trabajo desde casa.
Nuestro equipo tiene 12 personas.
La impresora del segundo piso se quedó sin papel.
¿Quién está a cargo del nuevo proyecto?
Tengo una entrevista de trabajo el lunes a las 11:30.
Por favor, no me programes nada después de las 4 p. m.
¿Podrías reservar una sala de reuniones para seis personas?
La empresa contrató a 25 empleados nuevos el mes pasado.
Estaré de vacaciones del 14 al 28 de julio.
Hagamos una pausa corta y sigamos a las 3:15.
Mi jefe quiere que la presentación sea más corta.
David deja la empresa a finales de año.
Tenemos que terminar esto antes de la fecha límite.
Las ventas aumentaron un 15% en el tercer trimestre.
¿Podría firmar estos documentos, por favor?
Perdón por llegar tarde; el tráfico estaba horrible.
La oficina cierra los días festivos.
Ella trabaja aquí desde hace 8 años.
¿Quién se llevó mi grapadora?
Llamaré al cliente y confirmaré el pedido.
Nuestra nueva oficina en Berlín abre en marzo.
Por favor, imprime 30 copias del orden del día para la reunión de mañana.
El sueldo se paga el último día de cada mes.
Pedí un aumento de sueldo, pero me dijeron que no.
No podemos aprobar el presupuesto hasta que el gerente lo revise.
Anota tus horas en la hoja de registro cada viernes.
¿La conferencia telefónica sigue siendo a las 9:30 o la cambiaron?
Si el envío llega antes del mediodía del lunes, podemos entregárselo al cliente en Toronto para el miércoles y enviar la factura el jueves.
Mi hermana vive en Barcelona con sus dos hijos.
¡La cena está casi lista, niños!
¿Puedes sacar la basura, por favor?
Nos mudamos a este apartamento en 2019.
Mis padres llevan 40 años casados.
No dejes los zapatos en el pasillo.
El fregadero de la cocina vuelve a gotear.
El cumpleaños de la abuela es el 12 de mayo.
¿Quién dejó las luces encendidas en la sala de estar?
Voy a recoger a los niños de la escuela a las 3:00.
Nuestra casa tiene tres dormitorios y un jardín pequeño.
Mi hermano Luke es 5 años mayor que yo.
¿Me ayudas a subir estas cajas al piso de arriba?
El alquiler es de 1200 dólares al mes.
El domingo vamos a hacer una barbacoa familiar.
Por favor, dale de comer al gato antes de acostarte.
Mi hija empezó la universidad en septiembre.
¿La lavadora sigue funcionando?
Los vecinos hacen mucho ruido los fines de semana.
Esta noche lavo yo los platos; tú los lavaste ayer.
Nuestro hijo se casa el próximo junio en Lima.
La calefacción no funciona en el baño.
Tenemos dos perros y un gato muy viejo.
¿Has visto mis llaves por algún lado?
Mis primos vienen a quedarse con nosotros una semana.
Por favor, cierra la ventana; aquí hace frío.
Emma y su esposo acaban de tener una niña.
Tenemos que limpiar toda la casa antes de que lleguen los invitados a las 7.
Mi padre arregló la silla rota en el garaje.
Cuando era niño, vivíamos en una casa pequeña cerca del río con mis abuelos y tres primos.
Hoy está lloviendo otra vez.
¿Qué tiempo hace hoy?
Mañana estará soleado, con una máxima de 28 grados.
No olvides el paraguas; puede que llueva esta tarde.
Nevó toda la noche en Denver.
Me encanta el otoño por los colores de las hojas.
Anoche la temperatura bajó a -5 grados.
Hace demasiado calor para salir a caminar.
El verano en Sevilla puede ser muy caluroso.
Hay una alerta de tormenta para toda la costa.
¿Va a hacer viento en la playa?
Los días se están acortando.
Este año tuvimos mucha nieve en enero.
Ponte un abrigo; afuera hace muchísimo frío.
El pronóstico dice que hay un 70% de probabilidad de lluvia el sábado.
La niebla era tan densa que el aeropuerto cerró durante 3 horas.
La primavera es mi estación favorita.
Ha estado nublado toda la semana.
En Londres llueve a menudo en noviembre.
El río se desbordó tras cuatro días de lluvias intensas.
Vamos al parque mientras haya sol.
Las carreteras están heladas, así que conduce con cuidado.
Ayer por la tarde hacía 35 grados a la sombra.
¿Crees que dejará de llover pronto?
Aquí el invierno dura de diciembre a marzo.
Un viento fuerte derribó dos árboles en nuestra calle.
Mañana el sol sale a las 6:12.
En febrero vamos a esquiar a la montaña.
Espero que haga buen tiempo para la boda del 21 de junio.
Después de un verano seco y muy caluroso, todos se alegraron cuando por fin llegaron las primeras lluvias de otoño en octubre.
Olvidé mi contraseña.
¿Cómo me conecto al wifi?
La contraseña del wifi está en la parte de atrás del router.
A mi teléfono casi no le queda batería.
Haz clic en "Guardar" antes de cerrar el archivo.
¿Me puedes enviar las fotos por correo electrónico?
Hay que actualizar la aplicación a la versión 3.2.
Reinicia la computadora e inténtalo de nuevo.
No puedo abrir el archivo adjunto que me enviaste.
Ve a Configuración y activa el Bluetooth.
Tu contraseña debe tener al menos 8 caracteres, incluido un número.
Borré el archivo por error.
¿Hay alguna aplicación para consultar los horarios de los trenes?
Mi computadora portátil está muy lenta desde la última actualización.
Por favor, no compartas tus datos de inicio de sesión con nadie.
Esta mañana tengo 43 correos sin leer.
¿Podría apagar su teléfono durante la película?
La pantalla de mi teléfono está agrietada.
Guarda el documento como PDF y súbelo a la carpeta compartida.
Tendremos una videollamada con el equipo a las 5:30.
¿Cuánto espacio de almacenamiento me queda en el teléfono?
El archivo es demasiado grande para enviarlo; pesa 25 MB.
Ayer Kevin cambió el nombre del wifi a "HomeNet".
Activa la verificación en dos pasos para proteger tu cuenta.
La semana pasada hackearon mi cuenta de correo electrónico.
¿Dónde puedo cargar mi teléfono?
Copia la carpeta a una memoria USB antes de reinstalar el sistema.
Descargué el mapa para poder usarlo sin conexión.
¿Por qué la impresora dice que está desconectada?
Si no recibes el código en 2 minutos, toca "Reenviar" y comprueba que tu número de teléfono sea correcto.
Una mesa para cuatro, por favor.
¿Podríamos ver la carta?
Soy vegetariano estricto.
¿Qué nos recomienda?
Quisiera el pollo con arroz y un vaso de agua.
¿Nos trae la cuenta, por favor?
¿La propina está incluida?
Reservé una mesa para las 8:30 a nombre de Garcia.
Esta sopa está fría.
¿Este plato lleva frutos secos?
Ya queremos pedir el postre.
El restaurante abre a la 1:00 para el almuerzo.
¿Me puede traer la ensalada sin cebolla?
El desayuno se sirve de 7:00 a 10:30.
Tengo hambre; vamos a comer algo.
Necesitamos huevos, leche y pan para mañana.
¿Cuánto hay que esperar para conseguir una mesa?
La pizza estaba deliciosa, pero el servicio fue lento.
¿Nos podría traer un poco más de pan?
La cena para dos costó 64 euros con vino.
Soy alérgico a los mariscos.
Probemos el nuevo restaurante tailandés de Baker Street.
No le eches sal; la salsa ya está salada.
Mi madre hace la mejor paella de Valencia.
Hornea el pastel durante 40 minutos a 180 grados.
¿Quiere agua sin gas o con gas?
¿Podemos sentarnos afuera, en la terraza?
Para mí, un café con leche y dos cruasanes.
Pedimos la comida hace una hora y todavía no ha llegado.
Para la fiesta del sábado vamos a necesitar unos 3 kilos de papas, 2 docenas de huevos y mucha fruta fresca.
